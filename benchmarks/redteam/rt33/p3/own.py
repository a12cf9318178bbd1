
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 128}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__log_softmax_mul_neg_sum_1', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 10, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 6144}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__log_softmax_mul_neg_sum_1(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 128
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 64)
    x1 = xindex // 64
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 320*x1), xmask)
    tmp2 = tl.load(in_ptr0 + (64 + x0 + 320*x1), xmask)
    tmp5 = tl.load(in_ptr0 + (128 + x0 + 320*x1), xmask)
    tmp8 = tl.load(in_ptr0 + (192 + x0 + 320*x1), xmask)
    tmp11 = tl.load(in_ptr0 + (256 + x0 + 320*x1), xmask)
    tmp15 = tl.load(in_ptr1 + (x0 + 320*x1), xmask)
    tmp18 = tl.load(in_ptr1 + (64 + x0 + 320*x1), xmask)
    tmp22 = tl.load(in_ptr1 + (128 + x0 + 320*x1), xmask)
    tmp26 = tl.load(in_ptr1 + (192 + x0 + 320*x1), xmask)
    tmp30 = tl.load(in_ptr1 + (256 + x0 + 320*x1), xmask)
    tmp1 = libdevice.exp(tmp0)
    tmp3 = libdevice.exp(tmp2)
    tmp4 = tmp1 + tmp3
    tmp6 = libdevice.exp(tmp5)
    tmp7 = tmp4 + tmp6
    tmp9 = libdevice.exp(tmp8)
    tmp10 = tmp7 + tmp9
    tmp12 = libdevice.exp(tmp11)
    tmp13 = tmp10 + tmp12
    tmp14 = tl_math.log(tmp13)
    tmp16 = tmp0 - tmp14
    tmp17 = tmp15 * tmp16
    tmp19 = tmp2 - tmp14
    tmp20 = tmp18 * tmp19
    tmp21 = tmp17 + tmp20
    tmp23 = tmp5 - tmp14
    tmp24 = tmp22 * tmp23
    tmp25 = tmp21 + tmp24
    tmp27 = tmp8 - tmp14
    tmp28 = tmp26 * tmp27
    tmp29 = tmp25 + tmp28
    tmp31 = tmp11 - tmp14
    tmp32 = tmp30 * tmp31
    tmp33 = tmp29 + tmp32
    tmp34 = -tmp33
    tl.store(in_out_ptr0 + (x2), tmp34, xmask)
