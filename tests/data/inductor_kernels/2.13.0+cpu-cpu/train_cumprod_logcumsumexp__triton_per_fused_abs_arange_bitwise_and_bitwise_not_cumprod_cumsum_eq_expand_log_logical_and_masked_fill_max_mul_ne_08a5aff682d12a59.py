
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton.jit
def _triton_helper_fn_add0(arg0_0, arg1_0):
    tmp0 = arg0_0 + arg1_0
    return tmp0

@triton.jit
def _triton_helper_fn_mul1(arg0_0, arg1_0):
    tmp0 = arg0_0 * arg1_0
    return tmp0

@triton_heuristics.persistent_reduction(
    size_hints={'x': 8, 'r0_': 32},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*i64', 'out_ptr2': '*i64', 'out_ptr4': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_per_fused_abs_arange_bitwise_and_bitwise_not_cumprod_cumsum_eq_expand_log_logical_and_masked_fill_max_mul_ne_scalar_tensor_scatter_sum_view_where_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 2, 'num_store': 4, 'num_reduction': 2, 'autotune_hints': set(), 'tiling_scores': {'x': 192, 'r0_': 8192}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False}
)
@triton.jit
def triton_per_fused_abs_arange_bitwise_and_bitwise_not_cumprod_cumsum_eq_expand_log_logical_and_masked_fill_max_mul_ne_scalar_tensor_scatter_sum_view_where_0(in_ptr0, in_ptr1, out_ptr0, out_ptr1, out_ptr2, out_ptr4, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 8
    r0_numel = 32
    R0_BLOCK: tl.constexpr = 32
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_1 = r0_index
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (r0_1 + 32*x0), xmask, eviction_policy='evict_first', other=0.0)
    tmp3 = tl.load(in_ptr1 + (r0_1 + 32*x0), xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl_math.abs(tmp0)
    tmp2 = tl_math.log(tmp1)
    tmp4 = tl.full([1, 1], 0.0, tl.float32)
    tmp5 = tmp3 == tmp4
    tmp6 = tmp5.to(tl.int64)
    tmp7 = tmp6.to(tl.int64)
    tmp8 = tl.broadcast_to(tmp7, [XBLOCK, R0_BLOCK])
    tmp9, = tl.associative_scan((tmp8,), 1, _triton_helper_fn_add0)
    tmp10 = tl.full([1, 1], 1, tl.int64)
    tmp11 = tmp9 == tmp10
    tmp12 = tmp11.to(tl.int32)
    tmp13 = tl.broadcast_to(tmp12, [XBLOCK, R0_BLOCK])
    tmp15 = tl.where(xmask, tmp13, -2147483648)
    tmp16 = tl.broadcast_to(rindex, tmp15.shape)
    tmp14_val, tmp14_idx = triton_helpers.max_with_index(tmp15, tmp16, 1)
    tmp14 = tmp14_idx[:, None]
    tmp17 = (r0_1).to(tl.int64)
    tmp18 = (tmp17).to(tl.int64)
    tmp19 = tmp14 == tmp18
    tmp20 = tl.full([1, 1], 0, tl.int64)
    tmp21 = tl.where(tmp19, tmp10, tmp20)
    tmp22 = (tmp21 != 0)
    tmp23 = tmp22 & tmp11
    tmp24 = tmp23 == 0
    tmp25 = tmp11 & tmp24
    tmp26 = tmp25 == 0
    tmp27 = tl.full([1, 1], 1.0, tl.float32)
    tmp28 = tl.where(tmp26, tmp27, tmp3)
    tmp29 = tmp28.to(tl.float32)
    tmp30 = tl.broadcast_to(tmp29, [XBLOCK, R0_BLOCK])
    tmp31, = tl.associative_scan((tmp30,), 1, _triton_helper_fn_mul1)
    tmp32 = tmp9 != tmp10
    tmp33 = tl.where(tmp32, tmp4, tmp0)
    tmp34 = tmp31 * tmp33
    tmp35 = tl.broadcast_to(tmp34, [XBLOCK, R0_BLOCK])
    tmp37 = tl.where(xmask, tmp35, 0)
    tmp38 = tl.sum(tmp37, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (r0_1 + 32*x0), tmp2, xmask)
    tl.store(out_ptr1 + (r0_1 + 32*x0), tmp9, xmask)
    tl.store(out_ptr2 + (x0), tmp14, xmask)
    tl.store(out_ptr4 + (x0), tmp38, xmask)
