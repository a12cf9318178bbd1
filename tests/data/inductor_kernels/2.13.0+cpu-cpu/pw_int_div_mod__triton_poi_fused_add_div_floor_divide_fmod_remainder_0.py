
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*i32', 'in_ptr1': '*i32', 'out_ptr0': '*i32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_add_div_floor_divide_fmod_remainder_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 32768}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_div_floor_divide_fmod_remainder_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tl.full([1], 0, tl.int32)
    tmp3 = tl.full([1], 1, tl.int32)
    tmp4 = tmp1 == tmp2
    tmp5 = tl.where(tmp4, tmp3, tmp1)
    tmp6 = tmp5 < tmp2
    tmp7 = tmp2 - tmp0
    tmp8 = tl.where(tmp6, tmp7, tmp0)
    tmp9 = tmp2 - tmp5
    tmp10 = tl.where(tmp6, tmp9, tmp5)
    tmp11 = tmp8 < tmp2
    tmp12 = ~tmp8
    tmp13 = tl.where(tmp11, tmp12, tmp8)
    tmp14 = tmp13 // tmp10
    tmp15 = ~tmp14
    tmp16 = tl.where(tmp11, tmp15, tmp14)
    tmp17 = tl.where(tmp4, tmp2, tmp16)
    tmp18 = (tmp0 % tmp1)
    tmp19 = tmp18 != tmp2
    tmp20 = (libdevice.signbit(tmp18) != 0) if (tmp18).dtype is tl.float32 else tmp18 < 0
    tmp21 = (libdevice.signbit(tmp1) != 0) if (tmp1).dtype is tl.float32 else tmp1 < 0
    tmp22 = tmp20 != tmp21
    tmp23 = tmp19 & tmp22
    tmp24 = tmp18 + tmp1
    tmp25 = tl.where(tmp23, tmp24, tmp18)
    tmp26 = tmp17 + tmp25
    tmp27 = tmp26 + tmp18
    tmp28 = tmp0 // tmp1
    tmp29 = tmp27 + tmp28
    tl.store(out_ptr0 + (x0), tmp29, xmask)
