/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * vgpu hardware contract: register offsets, fields, page-table entry format,
 * command encodings and the fault record layout.
 *
 * This one header is included by both sides of the contract: the QEMU device
 * model (qemu-device/, copied to include/hw/vgpu/vgpu_hw.h in the QEMU tree)
 * and the Linux driver.  It therefore uses nothing but the preprocessor and
 * integer constants; each side wraps the fields in its own helpers
 * (FIELD_GET()/FIELD_PREP() in the kernel, registerfields.h in QEMU).
 *
 * The prose specification is Documentation/gpu/vgpu/hardware.rst.  Every
 * number here appears there; change both together.
 *
 * Conventions:
 *  - All registers are 32 bits wide and little endian.  A 64-bit quantity is
 *    a _LO/_HI pair; the device latches it when _HI is written (writers write
 *    _LO then _HI) and readers read _LO then _HI (the device snapshots the
 *    pair on the _LO read).
 *  - Field macros come as VGPU_<REG>_<FIELD>_SHIFT and _MASK (mask already
 *    shifted into place).
 *  - A "memory descriptor" (page-table root, ring base, fault buffer base) is
 *    encoded exactly like a page-directory entry: VALID, APERTURE and a 4 KiB
 *    aligned address.
 */
#ifndef VGPU_HW_H
#define VGPU_HW_H

#define VGPU_BIT(n)			(1u << (n))
#define VGPU_BIT64(n)			(1ull << (n))
#define VGPU_MASK(hi, lo)		((~0u >> (31 - (hi))) & ~((1u << (lo)) - 1u))
#define VGPU_MASK64(hi, lo)		((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1ull))

/* ---------------------------------------------------------------- PCI --- */

#define VGPU_PCI_VENDOR_ID		0x1b36	/* Red Hat, Inc. (QEMU) */
#define VGPU_PCI_DEVICE_ID		0x0120
#define VGPU_PCI_REVISION		0x01
#define VGPU_PCI_CLASS			0x0302	/* 3D controller */

#define VGPU_BAR_MMIO			0	/* 64 KiB of registers */
#define VGPU_BAR_VRAM			2	/* 64-bit prefetchable, CPU window */
#define VGPU_BAR_MSIX			4	/* MSI-X table and PBA */
#define VGPU_MMIO_SIZE			0x10000

/* MSI-X vectors */
#define VGPU_MSIX_VEC_GENERAL		0	/* fences, queue errors, invalidation */
#define VGPU_MSIX_VEC_FAULT		1	/* fault buffer */
#define VGPU_MSIX_NR_VECTORS		2

/* ------------------------------------------------------ Identification --- */

#define VGPU_REG_ID			0x0000	/* RO */
#define   VGPU_ID_MAGIC			0x55504756u	/* "VGPU" */
#define VGPU_REG_VERSION		0x0004	/* RO */
#define   VGPU_VERSION_MINOR_SHIFT	0
#define   VGPU_VERSION_MINOR_MASK	VGPU_MASK(15, 0)
#define   VGPU_VERSION_MAJOR_SHIFT	16
#define   VGPU_VERSION_MAJOR_MASK	VGPU_MASK(31, 16)
#define   VGPU_VERSION_MAJOR		1
/*
 * Minor 1: CALL, NOWRITE; 2: privilege; 3: PT_XCHG; 4: cost model;
 * 5: GATHER, SCATTER, TILE; 6: lanes; 7: deterministic mode; 8: COMPUTE;
 * 9: FENCE CLOCK.
 */
#define   VGPU_VERSION_MINOR		9
#define VGPU_REG_CAPS			0x0008	/* RO */
#define   VGPU_CAPS_PAGE_64K		VGPU_BIT(0)
#define   VGPU_CAPS_PAGE_2M		VGPU_BIT(1)
#define   VGPU_CAPS_PAGE_1G		VGPU_BIT(2)
#define   VGPU_CAPS_AD_BITS		VGPU_BIT(3)
#define   VGPU_CAPS_ACCESS_COUNTERS	VGPU_BIT(4)
#define   VGPU_CAPS_STRICT		VGPU_BIT(5)	/* strict property on */
#define   VGPU_CAPS_CALL		VGPU_BIT(6)	/* VGPU_OP_CALL */
#define   VGPU_CAPS_FENCE_NOWRITE	VGPU_BIT(7)	/* VGPU_FENCE_FLAG_NOWRITE */
#define   VGPU_CAPS_PRIV_LEVELS		VGPU_BIT(8)	/* CALL streams are unprivileged */
#define   VGPU_CAPS_PT_XCHG		VGPU_BIT(9)	/* PT_XCHG_ADDR / PT_XCHG_DATA */
#define   VGPU_CAPS_COST_MODEL		VGPU_BIT(10)	/* modeled time: COST_*, QTIME_* */
#define   VGPU_CAPS_GATHER		VGPU_BIT(11)	/* GATHER, SCATTER, TILE */
#define   VGPU_CAPS_LANES		VGPU_BIT(12)	/* VGPU_REG_LANES */
#define   VGPU_CAPS_DETERMINISTIC	VGPU_BIT(13)	/* deterministic property on */
#define   VGPU_CAPS_COMPUTE		VGPU_BIT(14)	/* VGPU_OP_COMPUTE */
#define   VGPU_CAPS_FENCE_CLOCK		VGPU_BIT(15)	/* VGPU_FENCE_FLAG_CLOCK */
#define VGPU_REG_VRAM_SIZE_LO		0x0010	/* RO, bytes */
#define VGPU_REG_VRAM_SIZE_HI		0x0014
#define VGPU_REG_VISIBLE_SIZE_LO	0x0018	/* RO, CPU window (BAR2) bytes */
#define VGPU_REG_VISIBLE_SIZE_HI	0x001c
#define VGPU_REG_VISIBLE_BASE_LO	0x0020	/* RW, VRAM offset of the window */
#define VGPU_REG_VISIBLE_BASE_HI	0x0024
#define   VGPU_VISIBLE_BASE_ALIGN	(1u << 20)	/* window moves in 1 MiB steps */
#define VGPU_REG_NUM_QUEUES		0x0028	/* RO */
#define VGPU_REG_NUM_CONTEXTS		0x002c	/* RO */
#define VGPU_REG_TLB_L1_GEOMETRY	0x0030	/* RO, per queue */
#define VGPU_REG_TLB_L2_GEOMETRY	0x0034	/* RO, shared */
#define   VGPU_TLB_GEOMETRY_SETS_SHIFT	0
#define   VGPU_TLB_GEOMETRY_SETS_MASK	VGPU_MASK(15, 0)
#define   VGPU_TLB_GEOMETRY_WAYS_SHIFT	16
#define   VGPU_TLB_GEOMETRY_WAYS_MASK	VGPU_MASK(31, 16)
#define VGPU_REG_ACCESS_CHUNK_SHIFT	0x0038	/* RO, log2 of the counter chunk */
#define   VGPU_ACCESS_CHUNK_SHIFT_DEFAULT 21	/* 2 MiB of VRAM per counter */
#define VGPU_REG_LANES			0x003c	/* RO, lanes of an access kernel */
#define   VGPU_LANES_MAX		256
#define VGPU_REG_TIMESTAMP_LO		0x0040	/* RO, device (wall) clock in ns */
#define VGPU_REG_TIMESTAMP_HI		0x0044

/* ------------------------------------------------------ Control, reset --- */

#define VGPU_REG_CONTROL		0x0050	/* WO */
#define   VGPU_CONTROL_RESET		VGPU_BIT(0)	/* whole device */
#define   VGPU_CONTROL_COUNTERS_RESET	VGPU_BIT(1)	/* all counters to 0 */
#define VGPU_REG_STATUS			0x0054	/* RO */
#define   VGPU_STATUS_READY		VGPU_BIT(0)
#define   VGPU_STATUS_WINDOW_ERROR	VGPU_BIT(1)	/* last VISIBLE_BASE refused */
#define   VGPU_STATUS_INVAL_REFUSED	VGPU_BIT(2)	/* INVAL_CMD full or invalid */
#define   VGPU_STATUS_FAULT_BUF_ERROR	VGPU_BIT(3)	/* fault buffer set-up invalid */
#define   VGPU_STATUS_PT_XCHG_ERROR	VGPU_BIT(4)	/* last PT_XCHG refused */

/* ---------------------------------------------------------- Interrupts --- */

#define VGPU_REG_INT_STATUS		0x0060	/* RW1C */
#define VGPU_REG_INT_ENABLE		0x0064	/* RW */
#define   VGPU_INT_FENCE		VGPU_BIT(0)	/* general vector */
#define   VGPU_INT_QUEUE_ERROR		VGPU_BIT(1)	/* general vector */
#define   VGPU_INT_INVAL_DONE		VGPU_BIT(2)	/* general vector */
#define   VGPU_INT_FAULT		VGPU_BIT(3)	/* fault vector */
#define   VGPU_INT_FAULT_OVERFLOW	VGPU_BIT(4)	/* fault vector */
#define   VGPU_INT_GENERAL_MASK		(VGPU_INT_FENCE | VGPU_INT_QUEUE_ERROR | \
					 VGPU_INT_INVAL_DONE)
#define   VGPU_INT_FAULT_MASK		(VGPU_INT_FAULT | VGPU_INT_FAULT_OVERFLOW)
#define VGPU_REG_FENCE_QUEUES		0x0068	/* RW1C, bit n: queue n fenced */
#define VGPU_REG_ERROR_QUEUES		0x006c	/* RW1C, bit n: queue n in error */

/* ------------------------------------------------------ TLB invalidate --- */

#define VGPU_REG_INVAL_VA_LO		0x0080	/* RW, range start */
#define VGPU_REG_INVAL_VA_HI		0x0084
#define VGPU_REG_INVAL_SIZE_LO		0x0088	/* RW, range length */
#define VGPU_REG_INVAL_SIZE_HI		0x008c
#define VGPU_REG_INVAL_CMD		0x0090	/* WO, queues one request */
#define   VGPU_INVAL_CMD_OP_SHIFT	0
#define   VGPU_INVAL_CMD_OP_MASK	VGPU_MASK(1, 0)
#define     VGPU_INVAL_OP_ALL		0
#define     VGPU_INVAL_OP_CONTEXT	1
#define     VGPU_INVAL_OP_RANGE		2
#define   VGPU_INVAL_CMD_CTX_SHIFT	8
#define   VGPU_INVAL_CMD_CTX_MASK	VGPU_MASK(15, 8)
#define VGPU_REG_INVAL_REQ_SEQNO	0x0094	/* RO, requests accepted */
#define VGPU_REG_INVAL_DONE_SEQNO	0x0098	/* RO, requests completed */
#define   VGPU_INVAL_QUEUE_DEPTH	64	/* requests accepted, not done */

/* ------------------------------------------------------- Fault buffer --- */

#define VGPU_REG_FAULT_BUF_LO		0x00a0	/* RW, memory descriptor */
#define VGPU_REG_FAULT_BUF_HI		0x00a4
#define VGPU_REG_FAULT_BUF_ENTRIES	0x00a8	/* RW, power of two, 16..65536 */
#define   VGPU_FAULT_BUF_ENTRIES_MIN	16
#define   VGPU_FAULT_BUF_ENTRIES_MAX	65536
#define VGPU_REG_FAULT_BUF_HEAD		0x00ac	/* RW, driver: next to read */
#define VGPU_REG_FAULT_BUF_TAIL		0x00b0	/* RO, device: next to write */
#define VGPU_REG_FAULT_BUF_OVERFLOWS	0x00b4	/* RO, records dropped */

/* --------------------------------------------------- Access counters --- */

#define VGPU_REG_ACCESS_CTR_INDEX	0x00c0	/* RW, VRAM chunk number */
#define VGPU_REG_ACCESS_CTR_VALUE	0x00c4	/* RO, accesses to that chunk */
#define VGPU_REG_ACCESS_CTR_CLEAR	0x00c8	/* WO, value = chunk, ~0 = all */
#define   VGPU_ACCESS_CTR_CLEAR_ALL	0xffffffffu

/* ------------------------------------------------ Page-table exchange --- */

/*
 * Exchange one 64-bit word of VRAM atomically with the device's page walks
 * and A/D updates: write ADDR, write DATA (the _HI write stores it at ADDR),
 * read DATA (the word's previous value).  ADDR must be 8-byte aligned and
 * inside VRAM, else the exchange is refused (VGPU_STATUS_PT_XCHG_ERROR,
 * memory untouched, DATA reads 0).  ADDR resets to VGPU_PT_XCHG_ADDR_NONE.
 */
#define VGPU_REG_PT_XCHG_ADDR_LO	0x00d0	/* RW, VRAM offset of the word */
#define VGPU_REG_PT_XCHG_ADDR_HI	0x00d4
#define   VGPU_PT_XCHG_ADDR_NONE	(~0ull)	/* reset value: refused */
#define VGPU_REG_PT_XCHG_DATA_LO	0x00d8	/* RW: write swaps, read: old word */
#define VGPU_REG_PT_XCHG_DATA_HI	0x00dc

/* ---------------------------------------------------------- Cost model --- */

/*
 * The parameters of the cost model (VGPU_CAPS_COST_MODEL), read-only: set
 * by device properties, a preset (COST_LINK) and per-parameter overrides.
 * Bandwidths in MB/s (10^6 bytes per second), times in ns.
 */
#define VGPU_REG_COST_LINK		0x0100	/* RO, preset the rest started from */
#define   VGPU_LINK_PCIE3		0	/* PCIe 3.0 x16 */
#define   VGPU_LINK_PCIE4		1	/* PCIe 4.0 x16 */
#define   VGPU_LINK_PCIE5		2	/* PCIe 5.0 x16 */
#define   VGPU_LINK_C2C			3	/* coherent CPU-GPU link (NVLink-C2C) */
#define VGPU_REG_COST_VRAM_BW		0x0104	/* RO, MB/s */
#define VGPU_REG_COST_LINK_BW		0x0108	/* RO, MB/s, each direction */
#define VGPU_REG_COST_LINK_LAT		0x010c	/* RO, ns per link transaction */
#define VGPU_REG_COST_TLB_MISS		0x0110	/* RO, ns per L1 TLB miss */
#define VGPU_REG_COST_WALK_LEVEL	0x0114	/* RO, ns per VRAM table entry read */
#define VGPU_REG_COST_FAULT		0x0118	/* RO, ns of fault service per stall */
#define VGPU_REG_COST_CMD		0x011c	/* RO, ns per command */
#define VGPU_REG_COST_DILATION		0x0120	/* RO, pacing factor, 0: off */

/* ------------------------------------------------------------ Contexts --- */

#define VGPU_NUM_CONTEXTS		16
#define VGPU_CTX_BASE			0x0400
#define VGPU_CTX_STRIDE			0x10
#define VGPU_CTX_REG(ctx, reg)		(VGPU_CTX_BASE + (ctx) * VGPU_CTX_STRIDE + (reg))
#define VGPU_CTX_ROOT_LO		0x00	/* RW, memory descriptor */
#define VGPU_CTX_ROOT_HI		0x04

/* -------------------------------------------------------------- Queues --- */

#define VGPU_NUM_QUEUES			8
#define VGPU_QUEUE_BASE			0x1000
#define VGPU_QUEUE_STRIDE		0x40
#define VGPU_QUEUE_REG(q, reg)		(VGPU_QUEUE_BASE + (q) * VGPU_QUEUE_STRIDE + (reg))
#define VGPU_QUEUE_RING_LO		0x00	/* RW, memory descriptor */
#define VGPU_QUEUE_RING_HI		0x04
#define VGPU_QUEUE_RING_SIZE		0x08	/* RW, bytes, power of two */
#define   VGPU_RING_SIZE_MIN		4096u
#define   VGPU_RING_SIZE_MAX		(4u << 20)
#define VGPU_QUEUE_CONTEXT		0x0c	/* RW, context number */
#define VGPU_QUEUE_HEAD			0x10	/* RO, byte offset, next to run */
#define VGPU_QUEUE_TAIL			0x14	/* RW, byte offset, end of work */
#define VGPU_QUEUE_DOORBELL		0x18	/* WO, any value: tail moved */
#define VGPU_QUEUE_CONTROL		0x1c	/* WO */
#define   VGPU_QUEUE_CONTROL_ENABLE	VGPU_BIT(0)
#define   VGPU_QUEUE_CONTROL_DISABLE	VGPU_BIT(1)
#define   VGPU_QUEUE_CONTROL_RESET	VGPU_BIT(2)	/* idle, head = tail = 0 */
#define   VGPU_QUEUE_CONTROL_REPLAY	VGPU_BIT(3)	/* retry stalled access */
#define   VGPU_QUEUE_CONTROL_CANCEL	VGPU_BIT(4)	/* abort stalled command */
#define VGPU_QUEUE_STATUS		0x20	/* RO */
#define   VGPU_QUEUE_STATUS_STATE_SHIFT	0
#define   VGPU_QUEUE_STATUS_STATE_MASK	VGPU_MASK(3, 0)
#define     VGPU_QUEUE_STATE_DISABLED	0
#define     VGPU_QUEUE_STATE_IDLE	1
#define     VGPU_QUEUE_STATE_RUNNING	2
#define     VGPU_QUEUE_STATE_WAITING	3	/* WAIT command not satisfied */
#define     VGPU_QUEUE_STATE_STALLED	4	/* fault outstanding */
#define     VGPU_QUEUE_STATE_ERROR	5
#define   VGPU_QUEUE_STATUS_ERROR_SHIFT	8
#define   VGPU_QUEUE_STATUS_ERROR_MASK	VGPU_MASK(15, 8)
#define     VGPU_QUEUE_ERROR_NONE	0
#define     VGPU_QUEUE_ERROR_OPCODE	1	/* unknown opcode */
#define     VGPU_QUEUE_ERROR_LENGTH	2	/* bad command length */
#define     VGPU_QUEUE_ERROR_RING	3	/* ring descriptor/size/tail bad */
#define     VGPU_QUEUE_ERROR_RING_DMA	4	/* ring memory not readable */
#define     VGPU_QUEUE_ERROR_CONTEXT	5	/* context number or root bad */
#define     VGPU_QUEUE_ERROR_CANCELLED	6	/* fault answered by CANCEL */
#define     VGPU_QUEUE_ERROR_ARGUMENT	7	/* bad field in a command */
#define     VGPU_QUEUE_ERROR_CALL_NESTED 8	/* CALL inside a CALL */
#define     VGPU_QUEUE_ERROR_PRIVILEGE	9	/* privileged command in a CALL stream */
#define     VGPU_QUEUE_ERROR_INDEX	10	/* GATHER/SCATTER index >= bound */
#define   VGPU_QUEUE_STATUS_IN_CALL	VGPU_BIT(16)	/* in a CALL's stream */
#define VGPU_QUEUE_CMD_OFFSET		0x24	/* RO, ring offset of current command */
#define VGPU_QUEUE_FENCE_LO		0x28	/* RO, last FENCE seqno written */
#define VGPU_QUEUE_FENCE_HI		0x2c
#define VGPU_QUEUE_FAULT_VA_LO		0x30	/* RO, stalled access, page aligned */
#define VGPU_QUEUE_FAULT_VA_HI		0x34
#define VGPU_QUEUE_FAULT_INFO		0x38	/* RO, as fault record dw2 */
#define VGPU_QUEUE_CALL_OFFSET		0x3c	/* RO, byte offset in the CALL stream */

/*
 * Modeled time per queue (VGPU_CAPS_COST_MODEL): the queue's clock, the
 * modeled ns of the commands it completed plus the time it waited stalled
 * on faults, and that stalled part alone.  Reset only with the device.
 */
#define VGPU_QTIME_BASE			0x1200
#define VGPU_QTIME_STRIDE		0x10
#define VGPU_QTIME_REG(q, reg)		(VGPU_QTIME_BASE + (q) * VGPU_QTIME_STRIDE + (reg))
#define VGPU_QTIME_CLOCK_LO		0x00	/* RO, modeled ns */
#define VGPU_QTIME_CLOCK_HI		0x04
#define VGPU_QTIME_STALL_LO		0x08	/* RO, modeled ns stalled */
#define VGPU_QTIME_STALL_HI		0x0c

/* ------------------------------------------------------------ Counters --- */

/*
 * 64-bit event counters, global and per context.  Counter i of the global
 * bank is at VGPU_COUNTER_GLOBAL(i) (_LO) and +4 (_HI); counter i of context
 * c at VGPU_COUNTER_CTX(c, i).  All are reset by VGPU_CONTROL_COUNTERS_RESET
 * and by device reset.
 */
#define VGPU_COUNTER_GLOBAL_BASE	0x2000
#define VGPU_COUNTER_CTX_BASE		0x2100
#define VGPU_COUNTER_BANK_SIZE		0x100
#define VGPU_COUNTER_GLOBAL(i)		(VGPU_COUNTER_GLOBAL_BASE + (i) * 8)
#define VGPU_COUNTER_CTX(c, i)		(VGPU_COUNTER_CTX_BASE + \
					 (c) * VGPU_COUNTER_BANK_SIZE + (i) * 8)
#define VGPU_CTR_L1_HIT			0
#define VGPU_CTR_L1_MISS		1
#define VGPU_CTR_L2_HIT			2
#define VGPU_CTR_L2_MISS		3
#define VGPU_CTR_WALKS			4	/* page-table walks started */
#define VGPU_CTR_PT_READS		5	/* page-table entries read */
#define VGPU_CTR_FAULTS			6	/* fault records raised */
#define VGPU_CTR_VRAM_READ_BYTES	7
#define VGPU_CTR_VRAM_WRITE_BYTES	8
#define VGPU_CTR_SYS_READ_BYTES		9
#define VGPU_CTR_SYS_WRITE_BYTES	10
#define VGPU_CTR_INVALIDATIONS		11	/* requests completed */
#define VGPU_CTR_COMMANDS		12	/* commands completed */
#define VGPU_CTR_STRICT_STALE		13	/* TLB hit differing from tables */
#define VGPU_CTR_STRICT_BAD_CONTEXT	14	/* work on an invalid root */
#define VGPU_CTR_FAULT_OVERFLOWS	15	/* global bank only */
#define VGPU_CTR_MODELED_NS		16	/* modeled ns run and stalled */
#define VGPU_CTR_STALL_NS		17	/* part of MODELED_NS stalled */
#define VGPU_CTR_NR			18

/* ------------------------------------------------------- Page tables --- */

/*
 * 48-bit GPU virtual addresses, four levels of 512 8-byte entries per 4 KiB
 * table.  Level 3 is the root; level 0 holds 4 KiB PTEs.
 *
 *   VA bits  47..39  38..30  29..21  20..12  11..0
 *   level       3       2       1       0    offset
 */
#define VGPU_VA_BITS			48
#define VGPU_PT_LEVELS			4
#define VGPU_PT_ENTRIES			512
#define VGPU_PT_SIZE			4096
#define VGPU_PAGE_SHIFT			12
#define VGPU_PT_LEVEL_SHIFT(l)		(VGPU_PAGE_SHIFT + 9 * (l))
#define VGPU_PT_INDEX(va, l)		((unsigned int)(((unsigned long long)(va) >> VGPU_PT_LEVEL_SHIFT(l)) & 0x1ff))

#define VGPU_PTE_VALID			VGPU_BIT64(0)
#define VGPU_PTE_READ			VGPU_BIT64(1)
#define VGPU_PTE_WRITE			VGPU_BIT64(2)
#define VGPU_PTE_EXEC			VGPU_BIT64(3)
#define VGPU_PTE_SYSTEM			VGPU_BIT64(4)	/* aperture: 0 VRAM, 1 system */
#define VGPU_PTE_ACCESSED		VGPU_BIT64(5)	/* set by the device */
#define VGPU_PTE_DIRTY			VGPU_BIT64(6)	/* set by the device */
#define VGPU_PTE_LEAF			VGPU_BIT64(7)	/* level 1: 2 MiB, level 2: 1 GiB */
#define VGPU_PTE_FRAG64K		VGPU_BIT64(8)	/* level 0: 64 KiB fragment */
#define VGPU_PTE_ADDR_MASK		VGPU_MASK64(51, 12)

#define VGPU_PAGE_SIZE_4K		(1ull << 12)
#define VGPU_PAGE_SIZE_64K		(1ull << 16)
#define VGPU_PAGE_SIZE_2M		(1ull << 21)
#define VGPU_PAGE_SIZE_1G		(1ull << 30)

/* ------------------------------------------------------------ Commands --- */

/*
 * A command is a header dword followed by LEN - 1 argument dwords.  64-bit
 * arguments are two dwords, low first.  Commands start on a dword boundary
 * and may wrap around the end of the ring.
 */
#define VGPU_CMD_OPCODE_SHIFT		0
#define VGPU_CMD_OPCODE_MASK		VGPU_MASK(7, 0)
#define VGPU_CMD_FLAGS_SHIFT		8
#define VGPU_CMD_FLAGS_MASK		VGPU_MASK(15, 8)
#define VGPU_CMD_LEN_SHIFT		16	/* total dwords including header */
#define VGPU_CMD_LEN_MASK		VGPU_MASK(31, 16)
#define VGPU_CMD_HEADER(op, flags, len) \
	(((op) << VGPU_CMD_OPCODE_SHIFT) | ((flags) << VGPU_CMD_FLAGS_SHIFT) | \
	 ((len) << VGPU_CMD_LEN_SHIFT))

#define VGPU_OP_NOP			0x00	/* len >= 1 */
#define VGPU_OP_COPY			0x01	/* src, dst, size */
#define   VGPU_COPY_LEN			7
#define VGPU_OP_FILL			0x02	/* dst, size, value32 */
#define   VGPU_FILL_LEN			6
#define VGPU_OP_WRITE			0x03	/* dst, data[len - 3] */
#define   VGPU_WRITE_LEN_MIN		4
#define VGPU_OP_FENCE			0x04	/* dst, seqno64 */
#define   VGPU_FENCE_LEN		5
#define   VGPU_FENCE_FLAG_IRQ		VGPU_BIT(0)
#define   VGPU_FENCE_FLAG_NOWRITE	VGPU_BIT(1)	/* no memory write, dst ignored */
#define   VGPU_FENCE_FLAG_CLOCK		VGPU_BIT(2)	/* dst: bus address, gets the clock */
#define VGPU_OP_WAIT			0x05	/* addr, value64: until *addr >= value */
#define   VGPU_WAIT_LEN			5
#define VGPU_OP_TIMESTAMP		0x06	/* dst: 64-bit queue clock, modeled ns */
#define   VGPU_TIMESTAMP_LEN		3
#define   VGPU_TIMESTAMP_FLAG_WALL	VGPU_BIT(0)	/* the device clock instead */
#define VGPU_OP_TOUCH			0x07	/* access-pattern kernel */
#define   VGPU_TOUCH_LEN		9
/*  dw1-2 VA, dw3-4 size, dw5 stride (bytes, STRIDED), dw6 count (accesses per
 *  pass, RANDOM), dw7 seed (RANDOM), dw8 repeat (passes, 0 = 1).
 *  Each access reads and/or writes one 64-byte line. */
#define   VGPU_TOUCH_FLAG_PATTERN_SHIFT	0
#define   VGPU_TOUCH_FLAG_PATTERN_MASK	VGPU_MASK(1, 0)
#define     VGPU_TOUCH_SEQUENTIAL	0
#define     VGPU_TOUCH_STRIDED		1
#define     VGPU_TOUCH_RANDOM		2
#define   VGPU_TOUCH_FLAG_ACCESS_SHIFT	2
#define   VGPU_TOUCH_FLAG_ACCESS_MASK	VGPU_MASK(3, 2)
#define     VGPU_TOUCH_READ		0
#define     VGPU_TOUCH_WRITE		1
#define     VGPU_TOUCH_RMW		2
#define     VGPU_TOUCH_EXEC		3	/* read that needs PTE EXEC */
/* 0: VGPU_REG_LANES lanes; k = 1 .. 9: at most 2^(k - 1) (a launch width) */
#define   VGPU_TOUCH_FLAG_LANES_SHIFT	4
#define   VGPU_TOUCH_FLAG_LANES_MASK	VGPU_MASK(7, 4)
#define     VGPU_TOUCH_LANES_LOG2_MAX	8
#define   VGPU_TOUCH_LINE		64
#define VGPU_OP_CHECKSUM		0x08	/* src, size, dst: FNV-1a 64 */
#define   VGPU_CHECKSUM_LEN		7
#define   VGPU_FNV64_OFFSET		0xcbf29ce484222325ull
#define   VGPU_FNV64_PRIME		0x100000001b3ull
#define VGPU_OP_CALL			0x09	/* va, size32: run an indirect stream */
#define   VGPU_CALL_LEN			4
/*  dw1-2 VA of the stream (4-byte aligned), dw3 its length in dwords,
 *  1 .. VGPU_CALL_SIZE_MAX_DW.  The stream is read through the queue's
 *  context; it holds any commands but CALL.  It is unprivileged: a FENCE
 *  there may not use IRQ or NOWRITE (VGPU_QUEUE_ERROR_PRIVILEGE) and does
 *  not move QUEUE_FENCE. */
#define   VGPU_CALL_SIZE_MAX_DW		(1u << 24)	/* 64 MiB */
#define VGPU_OP_GATHER			0x0a	/* dst[i] = base[idx[i]] */
#define VGPU_OP_SCATTER			0x0b	/* base[idx[i]] = src[i] */
#define   VGPU_GATHER_LEN		9	/* both */
/*
 *  dw1-2 VA of the index buffer (count little-endian u32, 4-byte aligned),
 *  dw3-4 base VA, dw5 count, dw6 bound (indices must be below it, else
 *  VGPU_QUEUE_ERROR_INDEX at that index), dw7-8 VA of the packed elements
 *  (GATHER: dst, SCATTER: src).  Element i is 1 << ELEM_SHIFT bytes at
 *  base + idx[i] * elem; base and dst/src aligned to the element size.
 *  Flag 4 (GATHER): NODST, read the elements only, dw7-8 ignored.
 */
#define   VGPU_GATHER_FLAG_ELEM_SHIFT_SHIFT 0
#define   VGPU_GATHER_FLAG_ELEM_SHIFT_MASK VGPU_MASK(3, 0)
#define     VGPU_GATHER_ELEM_SHIFT_MIN	2	/* 4-byte elements */
#define     VGPU_GATHER_ELEM_SHIFT_MAX	12	/* 4 KiB elements */
#define   VGPU_GATHER_FLAG_NODST	VGPU_BIT(4)
#define VGPU_OP_TILE			0x0c	/* 2D tiled access kernel */
#define   VGPU_TILE_LEN			9
/*
 *  dw1-2 VA of the grid's first line, dw3 pitch (bytes from a row to the
 *  next), dw4 tile width (bytes), dw5 tile height (rows), dw6 tiles across,
 *  dw7 tiles down, dw8 repeat (passes, 0 = 1).  VA, pitch and width are
 *  multiples of 64, across * width <= pitch; tile (x, y) starts at
 *  VA + y * height * pitch + x * width.  Flags 3:2 as TOUCH's ACCESS.
 */
#define   VGPU_TILE_FLAG_MODE_SHIFT	0
#define   VGPU_TILE_FLAG_MODE_MASK	VGPU_MASK(1, 0)
#define     VGPU_TILE_BLOCK		0	/* each tile's lines, row by row */
#define     VGPU_TILE_STENCIL		1	/* each line after its neighbours */
#define   VGPU_TILE_FLAG_ACCESS_SHIFT	2	/* VGPU_TOUCH_READ .. _EXEC */
#define   VGPU_TILE_FLAG_ACCESS_MASK	VGPU_MASK(3, 2)
#define   VGPU_TILE_FLAG_COLUMNS	VGPU_BIT(4)	/* tiles down, then across */
#define   VGPU_TILE_FLAG_RADIUS_SHIFT	5	/* STENCIL: 1..7, BLOCK: 0 */
#define   VGPU_TILE_FLAG_RADIUS_MASK	VGPU_MASK(7, 5)
#define VGPU_OP_COMPUTE			0x0d	/* ns32: compute, modeled time only */
#define   VGPU_COMPUTE_LEN		2
/*
 *  dw1: nanoseconds of work that touches no memory (the ALU part of a
 *  kernel), added to the queue's clock; it takes no time on the host.
 */

/* ------------------------------------------------------- Fault record --- */

/*
 * A fault record is 32 bytes (8 dwords) in the fault buffer:
 *   dw0-1  faulting VA (page aligned)
 *   dw2    queue, context, access, reason, level (fields below)
 *   dw3    VGPU_FAULT_DW3_VALID, set last; the driver clears it
 *   dw4-5  device timestamp (ns)
 *   dw6-7  reserved, zero
 */
#define VGPU_FAULT_RECORD_SIZE		32
#define VGPU_FAULT_DW_VA_LO		0
#define VGPU_FAULT_DW_VA_HI		1
#define VGPU_FAULT_DW_INFO		2
#define   VGPU_FAULT_INFO_QUEUE_SHIFT	0
#define   VGPU_FAULT_INFO_QUEUE_MASK	VGPU_MASK(7, 0)
#define   VGPU_FAULT_INFO_CTX_SHIFT	8
#define   VGPU_FAULT_INFO_CTX_MASK	VGPU_MASK(15, 8)
#define   VGPU_FAULT_INFO_ACCESS_SHIFT	16
#define   VGPU_FAULT_INFO_ACCESS_MASK	VGPU_MASK(19, 16)
#define     VGPU_ACCESS_READ		0
#define     VGPU_ACCESS_WRITE		1
#define     VGPU_ACCESS_EXEC		2
#define   VGPU_FAULT_INFO_REASON_SHIFT	20
#define   VGPU_FAULT_INFO_REASON_MASK	VGPU_MASK(23, 20)
#define     VGPU_FAULT_NOT_PRESENT	0	/* invalid PDE/PTE */
#define     VGPU_FAULT_READ_DENIED	1	/* PTE lacks READ */
#define     VGPU_FAULT_WRITE_DENIED	2	/* PTE lacks WRITE */
#define     VGPU_FAULT_EXEC_DENIED	3	/* PTE lacks EXEC */
#define     VGPU_FAULT_BAD_ADDRESS	4	/* VA >= 2^48, or target out of range */
#define     VGPU_FAULT_PT_DMA		5	/* page table not readable */
#define     VGPU_FAULT_BAD_ENTRY	6	/* LEAF set at level 3 */
#define   VGPU_FAULT_INFO_LEVEL_SHIFT	24
#define   VGPU_FAULT_INFO_LEVEL_MASK	VGPU_MASK(27, 24)
#define     VGPU_FAULT_LEVEL_ROOT	4	/* context root descriptor */
#define VGPU_FAULT_DW_FLAGS		3
#define   VGPU_FAULT_DW3_VALID		VGPU_BIT(0)
#define VGPU_FAULT_DW_TIME_LO		4
#define VGPU_FAULT_DW_TIME_HI		5

#endif /* VGPU_HW_H */
