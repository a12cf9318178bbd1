
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused__to_copy_abs_add_eq_isinf_isnan_log_mul_nan_to_num_ne_reciprocal_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 24576}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__to_copy_abs_add_eq_isinf_isnan_log_mul_nan_to_num_ne_reciprocal_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl_math.log(tmp0)
    tmp2 = tl.full([1], float("inf"), tl.float32)
    tmp3 = tmp1 == tmp2
    tmp4 = tl.full([1], float("-inf"), tl.float32)
    tmp5 = tmp1 == tmp4
    tmp6 = libdevice.isnan(tmp1).to(tl.int1)
    tmp7 = tl.full([1], 0.0, tl.float32)
    tmp8 = tl.where(tmp6, tmp7, tmp1)
    tmp9 = tl.full([1], -3.4028234663852886e+38, tl.float32)
    tmp10 = tl.where(tmp5, tmp9, tmp8)
    tmp11 = tl.full([1], 3.4028234663852886e+38, tl.float32)
    tmp12 = tl.where(tmp3, tmp11, tmp10)
    tmp13 = tmp6.to(tl.float32)
    tmp14 = tmp12 + tmp13
    tmp15 = tl.full([1], 1, tl.int32)
    tmp16 = (tmp15 / tmp0)
    tmp17 = tl.full([1], 1.0, tl.float32)
    tmp18 = tmp16 * tmp17
    tmp19 = libdevice.isinf(tmp18).to(tl.int1)
    tmp20 = tmp19.to(tl.float32)
    tmp21 = tmp14 + tmp20
    tmp22 = tmp0 == tmp0
    tmp23 = tl_math.abs(tmp0)
    tmp24 = tmp23 != tmp2
    tmp25 = tmp22 & tmp24
    tmp26 = tmp25.to(tl.float32)
    tmp27 = tmp21 + tmp26
    tl.store(out_ptr0 + (x0), tmp27, xmask)
