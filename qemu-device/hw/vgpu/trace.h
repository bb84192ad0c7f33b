#include "trace/trace-hw_vgpu.h"
