
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 16, 'r0_': 32},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': 'fp32', 'in_ptr2': 'fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'in_ptr6': '*fp32', 'in_ptr7': '*fp32', 'in_ptr8': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (10,): [['tt.divisibility', 16]], (11,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_per_fused__log_softmax__log_softmax_backward_data__softmax_add_arange_div_eq_expand_mse_loss_mse_loss_backward_mul_neg_nll_loss_backward_nll_loss_forward_scalar_tensor_sigmoid_smooth_l1_loss_smooth_l1_loss_backward_sub_view_xlogy_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 9, 'num_store': 1, 'num_reduction': 2, 'autotune_hints': set(), 'tiling_scores': {'x': 384, 'r0_': 8192}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False}
)
@triton.jit
def triton_per_fused__log_softmax__log_softmax_backward_data__softmax_add_arange_div_eq_expand_mse_loss_mse_loss_backward_mul_neg_nll_loss_backward_nll_loss_forward_scalar_tensor_sigmoid_smooth_l1_loss_smooth_l1_loss_backward_sub_view_xlogy_0(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, in_ptr6, in_ptr7, in_ptr8, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 16
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
    x0 = xindex
    r0_1 = r0_index
    tmp0 = tl.load(in_ptr0 + (x0), xmask, eviction_policy='evict_last')
    tmp11 = in_ptr1
    tmp12 = in_ptr2
    tmp23 = tl.load(in_ptr3 + (r0_1 + 32*x0), xmask, eviction_policy='evict_first', other=0.0)
    tmp24 = tl.load(in_ptr4 + (x0), xmask, eviction_policy='evict_last')
    tmp27 = tl.load(in_ptr5 + (x0), xmask, eviction_policy='evict_last')
    tmp34 = tl.load(in_ptr6 + (r0_1 + 32*x0), xmask, eviction_policy='evict_first', other=0.0)
    tmp35 = tl.load(in_ptr7 + (x0), xmask, eviction_policy='evict_last')
    tmp37 = tl.load(in_ptr8 + (x0), xmask, eviction_policy='evict_last')
    tmp1 = tl.full([1, 1], -100, tl.int64)
    tmp2 = tmp0 != tmp1
    tmp3 = tl.full([1, 1], 0, tl.int64)
    tmp4 = tl.where(tmp2, tmp0, tmp3)
    tmp5 = (r0_1).to(tl.int64)
    tmp6 = (tmp5).to(tl.int64)
    tmp7 = tmp4 == tmp6
    tmp8 = tl.full([1, 1], -1.0, tl.float32)
    tmp9 = tl.full([1, 1], 0.0, tl.float32)
    tmp10 = tl.where(tmp7, tmp8, tmp9)
    tmp13 = (tmp11 / tmp12)
    tmp14 = tl.where(tmp2, tmp13, tmp9)
    tmp15 = tmp10 * tmp14
    tmp16 = tl.broadcast_to(tmp15, [XBLOCK, R0_BLOCK])
    tmp18 = tl.where(xmask, tmp16, 0)
    tmp19 = tl.sum(tmp18, 1)[:, None].to(tl.float32)
    tmp20 = tl.full([1, 1], 16.0, tl.float32)
    tmp21 = (tmp11 / tmp20)
    tmp22 = -tmp21
    tmp25 = tmp23 - tmp24
    tmp26 = libdevice.exp(tmp25)
    tmp28 = (tmp26 / tmp27)
    tmp29 = tmp22 * tmp28
    tmp30 = tl.broadcast_to(tmp29, [XBLOCK, R0_BLOCK])
    tmp32 = tl.where(xmask, tmp30, 0)
    tmp33 = tl.sum(tmp32, 1)[:, None].to(tl.float32)
    tmp36 = tmp34 - tmp35
    tmp38 = tmp36 - tmp37
    tmp39 = libdevice.exp(tmp38)
    tmp40 = tmp39 * tmp19
    tmp41 = tmp15 - tmp40
    tmp42 = tmp39 * tmp33
    tmp43 = tmp29 - tmp42
    tmp44 = tmp41 + tmp43
    tmp45 = tl.sigmoid(tmp34)
    tmp46 = tl.sigmoid(tmp23)
    tmp47 = tmp45 - tmp46
    tmp48 = tmp47 * tmp11
    tmp49 = tl.full([1, 1], 512.0, tl.float32)
    tmp50 = (tmp48 / tmp49)
    tmp51 = tmp44 + tmp50
    tmp52 = tmp34 - tmp23
    tmp53 = tl_math.abs(tmp52)
    tmp54 = tl.full([1, 1], 1.0, tl.float32)
    tmp55 = tmp53 < tmp54
    tmp56 = tl.full([1, 1], 0.001953125, tl.float32)
    tmp57 = tmp11 * tmp56
    tmp58 = tmp57 * tmp52
    tmp59 = (tmp58 / tmp54)
    tmp60 = tl.full([1, 1], 0, tl.int32)
    tmp61 = tmp60 < tmp52
    tmp62 = tmp61.to(tl.int8)
    tmp63 = tmp52 < tmp60
    tmp64 = tmp63.to(tl.int8)
    tmp65 = tmp62 - tmp64
    tmp66 = tmp65.to(tmp52.dtype)
    tmp67 = tmp57 * tmp66
    tmp68 = tl.where(tmp55, tmp59, tmp67)
    tmp69 = tmp51 + tmp68
    tmp70 = tl.full([1, 1], 0.00390625, tl.float32)
    tmp71 = tmp52 * tmp70
    tmp72 = tmp71 * tmp11
    tmp73 = tmp69 + tmp72
    tl.store(in_out_ptr0 + (r0_1 + 32*x0), tmp73, xmask)
