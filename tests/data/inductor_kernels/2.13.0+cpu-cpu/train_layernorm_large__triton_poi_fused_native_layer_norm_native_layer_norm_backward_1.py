
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_native_layer_norm_native_layer_norm_backward_1', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 16, 'num_store': 2, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 98304}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_native_layer_norm_native_layer_norm_backward_1(in_ptr0, in_ptr1, in_ptr2, in_ptr3, out_ptr0, out_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tl.load(in_ptr2 + (0))
    tmp3 = tl.broadcast_to(tmp2, [XBLOCK])
    tmp5 = tl.load(in_ptr3 + (0))
    tmp6 = tl.broadcast_to(tmp5, [XBLOCK])
    tmp9 = tl.load(in_ptr0 + (2048 + x0), xmask)
    tmp10 = tl.load(in_ptr1 + (2048 + x0), xmask)
    tmp11 = tl.load(in_ptr2 + (1))
    tmp12 = tl.broadcast_to(tmp11, [XBLOCK])
    tmp14 = tl.load(in_ptr3 + (1))
    tmp15 = tl.broadcast_to(tmp14, [XBLOCK])
    tmp19 = tl.load(in_ptr0 + (4096 + x0), xmask)
    tmp20 = tl.load(in_ptr1 + (4096 + x0), xmask)
    tmp21 = tl.load(in_ptr2 + (2))
    tmp22 = tl.broadcast_to(tmp21, [XBLOCK])
    tmp24 = tl.load(in_ptr3 + (2))
    tmp25 = tl.broadcast_to(tmp24, [XBLOCK])
    tmp29 = tl.load(in_ptr0 + (6144 + x0), xmask)
    tmp30 = tl.load(in_ptr1 + (6144 + x0), xmask)
    tmp31 = tl.load(in_ptr2 + (3))
    tmp32 = tl.broadcast_to(tmp31, [XBLOCK])
    tmp34 = tl.load(in_ptr3 + (3))
    tmp35 = tl.broadcast_to(tmp34, [XBLOCK])
    tmp4 = tmp1 - tmp3
    tmp7 = tmp4 * tmp6
    tmp8 = tmp0 * tmp7
    tmp13 = tmp10 - tmp12
    tmp16 = tmp13 * tmp15
    tmp17 = tmp9 * tmp16
    tmp18 = tmp8 + tmp17
    tmp23 = tmp20 - tmp22
    tmp26 = tmp23 * tmp25
    tmp27 = tmp19 * tmp26
    tmp28 = tmp18 + tmp27
    tmp33 = tmp30 - tmp32
    tmp36 = tmp33 * tmp35
    tmp37 = tmp29 * tmp36
    tmp38 = tmp28 + tmp37
    tmp39 = tmp0 + tmp9
    tmp40 = tmp39 + tmp19
    tmp41 = tmp40 + tmp29
    tl.store(out_ptr0 + (x0), tmp38, xmask)
    tl.store(out_ptr1 + (x0), tmp41, xmask)
