
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_add_erf_i0_lgamma_mul_special_log_ndtr_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 3, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 40960}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_add_erf_i0_lgamma_mul_special_log_ndtr_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp2 = tl.load(in_out_ptr0 + (x0), xmask)
    tmp4 = tl.load(in_ptr1 + (x0), xmask)
    tmp1 = libdevice.lgamma(tmp0)
    tmp3 = tmp1 + tmp2
    tmp5 = libdevice.cyl_bessel_i0(tmp4)
    tmp6 = tmp3 + tmp5
    tmp7 = tl.full([1], 0.7071067811865476, tl.float32)
    tmp8 = tmp4 * tmp7
    tmp9 = libdevice.erf(tmp8)
    tmp10 = tl.full([1], 1.0, tl.float32)
    tmp11 = tmp9 + tmp10
    tmp12 = tl.full([1], 0.5, tl.float32)
    tmp13 = tmp11 * tmp12
    tmp14 = tmp6 + tmp13
    tmp15 = tmp4 < tmp10
    tmp16 = -tmp8
    tmp17 = libdevice.erfcx(tmp16)
    tmp18 = tmp17 * tmp12
    tmp19 = tl_math.log(tmp18)
    tmp20 = tmp8 * tmp8
    tmp21 = tmp19 - tmp20
    tmp22 = libdevice.erfc(tmp8)
    tmp23 = -tmp22
    tmp24 = tmp23 * tmp12
    tmp25 = libdevice.log1p(tmp24)
    tmp26 = tl.where(tmp15, tmp21, tmp25)
    tmp27 = tmp14 + tmp26
    tl.store(in_out_ptr0 + (x0), tmp27, xmask)
