
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 16},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'in_ptr6': '*fp32', 'out_ptr2': '*fp32', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]], (10,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__log_softmax_add_binary_cross_entropy_with_logits_div_mse_loss_nll_loss_forward_sigmoid_smooth_l1_loss_sub_xlogy_3', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 7, 'num_store': 2, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'r0_': 256}}
)
@triton.jit
def triton_per_fused__log_softmax_add_binary_cross_entropy_with_logits_div_mse_loss_nll_loss_forward_sigmoid_smooth_l1_loss_sub_xlogy_3(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, in_ptr6, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 16
    R0_BLOCK: tl.constexpr = 16
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
    tmp0 = tl.load(in_ptr0 + (r0_0), None)
    tmp15 = tl.load(in_ptr2 + (r0_0), None)
    tmp17 = tl.load(in_ptr3 + (r0_0), None)
    tmp26 = tl.load(in_out_ptr0 + (0))
    tmp27 = tl.broadcast_to(tmp26, [1, 1])
    tmp30 = tl.load(in_ptr4 + (0))
    tmp31 = tl.broadcast_to(tmp30, [1, 1])
    tmp34 = tl.load(in_ptr5 + (0))
    tmp35 = tl.broadcast_to(tmp34, [1, 1])
    tmp38 = tl.load(in_ptr6 + (0))
    tmp39 = tl.broadcast_to(tmp38, [1, 1])
    tmp1 = tl.full([1, 1], -100, tl.int64)
    tmp2 = tmp0 != tmp1
    tmp3 = tmp2.to(tl.int64)
    tmp4 = tl.broadcast_to(tmp3, [XBLOCK, R0_BLOCK])
    tmp6 = tl.sum(tmp4, 1)[:, None].to(tl.int64)
    tmp7 = tl.full([1, 1], 0, tl.int64)
    tmp8 = tl.where(tmp2, tmp0, tmp7)
    tmp9 = tl.full([1, 1], 32, tl.int32)
    tmp10 = tmp8 + tmp9
    tmp11 = tmp8 < 0
    tmp12 = tl.where(tmp11, tmp10, tmp8)
    tl.device_assert((0 <= tmp12) & (tmp12 < 32), "index out of bounds: 0 <= tmp12 < 32")
    tmp14 = tl.load(in_ptr1 + (tmp12 + 32*r0_0), None, eviction_policy='evict_last')
    tmp16 = tmp14 - tmp15
    tmp18 = tmp16 - tmp17
    tmp19 = -tmp18
    tmp20 = tl.full([1, 1], 0.0, tl.float32)
    tmp21 = tl.where(tmp2, tmp19, tmp20)
    tmp22 = tl.broadcast_to(tmp21, [XBLOCK, R0_BLOCK])
    tmp24 = tl.sum(tmp22, 1)[:, None].to(tl.float32)
    tmp25 = tmp6.to(tl.float32)
    tmp28 = tl.full([1, 1], 512.0, tl.float32)
    tmp29 = (tmp27 / tmp28)
    tmp32 = (tmp31 / tmp28)
    tmp33 = tmp29 + tmp32
    tmp36 = (tmp35 / tmp28)
    tmp37 = tmp33 + tmp36
    tmp40 = tl.full([1, 1], 0.0625, tl.float32)
    tmp41 = tmp39 * tmp40
    tmp42 = tmp37 + tmp41
    tmp43 = (tmp24 / tmp25)
    tmp44 = tmp42 + tmp43
    tl.store(out_ptr2 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp25, None)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp44, None)
