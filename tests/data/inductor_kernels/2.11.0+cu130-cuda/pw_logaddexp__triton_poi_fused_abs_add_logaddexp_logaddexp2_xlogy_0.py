
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_poi_fused_abs_add_logaddexp_logaddexp2_xlogy_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 2, 'num_store': 1, 'num_reduction': 0, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 32768}},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_abs_add_logaddexp_logaddexp2_xlogy_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp7 = tl.load(in_ptr1 + (x0), xmask)
    tmp1 = tmp0 == tmp0
    tmp2 = tl_math.abs(tmp0)
    tmp3 = tl.full([1], float("inf"), tl.float32)
    tmp4 = tmp2 != tmp3
    tmp5 = tmp1 & tmp4
    tmp6 = tmp5 == 0
    tmp8 = tmp0 == tmp7
    tmp9 = tmp6 & tmp8
    tmp10 = tmp0 >= tmp7
    tmp11 = tl.where(tmp10, tmp0, tmp7)
    tmp12 = tl.where(tmp10, tmp7, tmp0)
    tmp13 = tmp12 - tmp11
    tmp14 = libdevice.exp(tmp13)
    tmp15 = libdevice.log1p(tmp14)
    tmp16 = tmp11 + tmp15
    tmp17 = tl.where(tmp9, tmp0, tmp16)
    tmp18 = libdevice.isinf(tmp0).to(tl.int1)
    tmp19 = tmp18 & tmp8
    tmp20 = libdevice.exp2(tmp13)
    tmp21 = libdevice.log1p(tmp20)
    tmp22 = tl.full([1], 1.4426950408889634, tl.float32)
    tmp23 = tmp21 * tmp22
    tmp24 = tmp11 + tmp23
    tmp25 = tl.where(tmp19, tmp0, tmp24)
    tmp26 = tmp17 + tmp25
    tmp27 = tl_math.abs(tmp7)
    tmp28 = libdevice.isnan(tmp27).to(tl.int1)
    tmp29 = tl.full([1], 0.0, tl.float32)
    tmp30 = tmp0 == tmp29
    tmp31 = tl_math.log(tmp27)
    tmp32 = tmp0 * tmp31
    tmp33 = tl.where(tmp30, tmp29, tmp32)
    tmp34 = tl.full([1], float("nan"), tl.float32)
    tmp35 = tl.where(tmp28, tmp34, tmp33)
    tmp36 = tmp26 + tmp35
    tl.store(out_ptr0 + (x0), tmp36, xmask)
