
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 512},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', 'out_ptr2': '*fp32', 'out_ptr3': '*fp32', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (9,): [['tt.divisibility', 16]], (11,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__log_softmax__softmax_binary_cross_entropy_with_logits_exp_mse_loss_mul_sigmoid_smooth_l1_loss_sub_sum_xlogy_2', 'mutated_arg_names': [], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 6, 'num_store': 4, 'num_reduction': 4, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 0, 'r0_': 4096}}
)
@triton.jit
def triton_per_fused__log_softmax__softmax_binary_cross_entropy_with_logits_exp_mse_loss_mul_sigmoid_smooth_l1_loss_sub_sum_xlogy_2(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, out_ptr0, out_ptr1, out_ptr2, out_ptr3, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 512
    R0_BLOCK: tl.constexpr = 512
    rnumel = r0_numel
    RBLOCK: tl.constexpr = R0_BLOCK
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK], True, tl.int1)[:, None]
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_offset = 0
    r0_mask = tl.full([R0_BLOCK], True, tl.int1)[None, :]
    roffset = r0_offset
    rindex = r0_index
    r0_0 = r0_index
    r0_2 = r0_index // 32
    tmp0 = tl.load(in_ptr0 + (r0_0), None)
    tmp1 = tl.load(in_ptr1 + (r0_0), None)
    tmp33 = tl.load(in_ptr2 + (r0_2), None, eviction_policy='evict_last')
    tmp36 = tl.load(in_ptr3 + (r0_2), None, eviction_policy='evict_last')
    tmp45 = tl.load(in_ptr4 + (r0_2), None, eviction_policy='evict_last')
    tmp47 = tl.load(in_ptr5 + (r0_2), None, eviction_policy='evict_last')
    tmp2 = tmp0 - tmp1
    tmp3 = tmp2 * tmp2
    tmp4 = tl.broadcast_to(tmp3, [XBLOCK, R0_BLOCK])
    tmp6 = tl.sum(tmp4, 1)[:, None].to(tl.float32)
    tmp7 = tl_math.abs(tmp2)
    tmp8 = tl.full([1, 1], 1.0, tl.float32)
    tmp9 = tmp7 < tmp8
    tmp10 = tmp7 * tmp7
    tmp11 = tl.full([1, 1], 0.5, tl.float32)
    tmp12 = tmp10 * tmp11
    tmp13 = tmp12 * tmp8
    tmp14 = tmp7 - tmp11
    tmp15 = tl.where(tmp9, tmp13, tmp14)
    tmp16 = tl.broadcast_to(tmp15, [XBLOCK, R0_BLOCK])
    tmp18 = tl.sum(tmp16, 1)[:, None].to(tl.float32)
    tmp19 = tl.sigmoid(tmp1)
    tmp20 = tmp8 - tmp19
    tmp21 = tmp20 * tmp0
    tmp22 = tl.full([1, 1], 0.0, tl.float32)
    tmp23 = triton_helpers.minimum(tmp22, tmp0)
    tmp24 = tl_math.abs(tmp0)
    tmp25 = -tmp24
    tmp26 = libdevice.exp(tmp25)
    tmp27 = libdevice.log1p(tmp26)
    tmp28 = tmp23 - tmp27
    tmp29 = tmp21 - tmp28
    tmp30 = tl.broadcast_to(tmp29, [XBLOCK, R0_BLOCK])
    tmp32 = tl.sum(tmp30, 1)[:, None].to(tl.float32)
    tmp34 = tmp1 - tmp33
    tmp35 = libdevice.exp(tmp34)
    tmp37 = (tmp35 / tmp36)
    tmp38 = libdevice.isnan(tmp37).to(tl.int1)
    tmp39 = tmp37 == tmp22
    tmp40 = tl_math.log(tmp37)
    tmp41 = tmp37 * tmp40
    tmp42 = tl.where(tmp39, tmp22, tmp41)
    tmp43 = tl.full([1, 1], float("nan"), tl.float32)
    tmp44 = tl.where(tmp38, tmp43, tmp42)
    tmp46 = tmp0 - tmp45
    tmp48 = tmp46 - tmp47
    tmp49 = tmp37 * tmp48
    tmp50 = tmp44 - tmp49
    tmp51 = tl.broadcast_to(tmp50, [XBLOCK, R0_BLOCK])
    tmp53 = tl.sum(tmp51, 1)[:, None].to(tl.float32)
    tl.store(out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp6, None)
    tl.store(out_ptr1 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp18, None)
    tl.store(out_ptr2 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp32, None)
    tl.store(out_ptr3 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp53, None)
