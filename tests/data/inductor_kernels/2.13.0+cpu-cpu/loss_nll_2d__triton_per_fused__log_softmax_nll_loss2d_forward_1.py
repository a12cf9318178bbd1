
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 128},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*i64', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_per_fused__log_softmax_nll_loss2d_forward_1', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 6, 'num_store': 1, 'num_reduction': 2, 'autotune_hints': set(), 'tiling_scores': {'x': 0, 'r0_': 1024}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False}
)
@triton.jit
def triton_per_fused__log_softmax_nll_loss2d_forward_1(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 1
    r0_numel = 128
    R0_BLOCK: tl.constexpr = 128
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
    r0_0 = (r0_index % 64)
    r0_1 = r0_index // 64
    r0_2 = r0_index
    tmp0 = tl.load(in_ptr0 + (r0_0 + 320*r0_1), None, eviction_policy='evict_last')
    tmp2 = tl.load(in_ptr0 + (64 + r0_0 + 320*r0_1), None, eviction_policy='evict_last')
    tmp5 = tl.load(in_ptr0 + (128 + r0_0 + 320*r0_1), None, eviction_policy='evict_last')
    tmp8 = tl.load(in_ptr0 + (192 + r0_0 + 320*r0_1), None, eviction_policy='evict_last')
    tmp11 = tl.load(in_ptr0 + (256 + r0_0 + 320*r0_1), None, eviction_policy='evict_last')
    tmp15 = tl.load(in_ptr1 + (r0_2), None, eviction_policy='evict_first')
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
    tmp16 = tl.full([1, 1], -100, tl.int64)
    tmp17 = tmp15 != tmp16
    tmp18 = tl.full([1, 1], 0, tl.int64)
    tmp19 = tl.where(tmp17, tmp15, tmp18)
    tl.device_assert((0 <= tmp19) & (tmp19 < 5), "index out of bounds: 0 <= tmp19 < 5")
    tmp21 = tl.load(in_ptr0 + (r0_0 + 64*tmp19 + 320*r0_1), None, eviction_policy='evict_first')
    tmp22 = tmp21 - tmp14
    tmp23 = -tmp22
    tmp24 = tl.full([1, 1], 0.0, tl.float32)
    tmp25 = tl.where(tmp17, tmp23, tmp24)
    tmp26 = tl.broadcast_to(tmp25, [XBLOCK, R0_BLOCK])
    tmp28 = tl.sum(tmp26, 1)[:, None].to(tl.float32)
    tmp29 = tmp17.to(tl.int64)
    tmp30 = tl.broadcast_to(tmp29, [XBLOCK, R0_BLOCK])
    tmp32 = tl.sum(tmp30, 1)[:, None].to(tl.int64)
    tmp33 = tmp32.to(tl.float32)
    tmp34 = (tmp28 / tmp33)
    tl.store(in_out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp34, None)
