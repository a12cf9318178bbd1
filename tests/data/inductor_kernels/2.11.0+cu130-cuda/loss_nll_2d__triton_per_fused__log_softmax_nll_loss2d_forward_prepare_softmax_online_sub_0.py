
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 1, 'r0_': 128},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*i64', 'xnumel': 'constexpr', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32), 'constants': {'xnumel': 1}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'autotune_hints': set(), 'kernel_name': 'triton_per_fused__log_softmax_nll_loss2d_forward_prepare_softmax_online_sub_0', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 6, 'num_store': 1, 'num_reduction': 2, 'backend_hash': '91D1D1166449D9E2EB66EB9770C9E2C3B0FEB787341F27FEB4D3F0338DA50336', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': False, 'are_deterministic_algorithms_enabled': False, 'tiling_scores': {'x': 0, 'r0_': 1024}}
)
@triton.jit
def triton_per_fused__log_softmax_nll_loss2d_forward_prepare_softmax_online_sub_0(in_out_ptr0, in_ptr0, in_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
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
    tmp0 = tl.load(in_ptr0 + (r0_0 + 320*r0_1), None)
    tmp1 = tl.load(in_ptr0 + (64 + r0_0 + 320*r0_1), None)
    tmp3 = tl.load(in_ptr0 + (128 + r0_0 + 320*r0_1), None)
    tmp5 = tl.load(in_ptr0 + (192 + r0_0 + 320*r0_1), None)
    tmp7 = tl.load(in_ptr0 + (256 + r0_0 + 320*r0_1), None)
    tmp24 = tl.load(in_ptr1 + (r0_2), None)
    tmp2 = triton_helpers.maximum(tmp0, tmp1)
    tmp4 = triton_helpers.maximum(tmp2, tmp3)
    tmp6 = triton_helpers.maximum(tmp4, tmp5)
    tmp8 = triton_helpers.maximum(tmp6, tmp7)
    tmp9 = tmp0 - tmp8
    tmp10 = libdevice.exp(tmp9)
    tmp11 = tmp1 - tmp8
    tmp12 = libdevice.exp(tmp11)
    tmp13 = tmp10 + tmp12
    tmp14 = tmp3 - tmp8
    tmp15 = libdevice.exp(tmp14)
    tmp16 = tmp13 + tmp15
    tmp17 = tmp5 - tmp8
    tmp18 = libdevice.exp(tmp17)
    tmp19 = tmp16 + tmp18
    tmp20 = tmp7 - tmp8
    tmp21 = libdevice.exp(tmp20)
    tmp22 = tmp19 + tmp21
    tmp23 = tl_math.log(tmp22)
    tmp25 = tl.full([1, 1], -100, tl.int64)
    tmp26 = tmp24 != tmp25
    tmp27 = tl.full([1, 1], 0, tl.int64)
    tmp28 = tl.where(tmp26, tmp24, tmp27)
    tmp29 = tl.full([1, 1], 5, tl.int32)
    tmp30 = tmp28 + tmp29
    tmp31 = tmp28 < 0
    tmp32 = tl.where(tmp31, tmp30, tmp28)
    tl.device_assert((0 <= tmp32) & (tmp32 < 5), "index out of bounds: 0 <= tmp32 < 5")
    tmp34 = tl.load(in_ptr0 + (r0_0 + 64*tmp32 + 320*r0_1), None)
    tmp35 = tmp34 - tmp8
    tmp36 = tmp35 - tmp23
    tmp37 = -tmp36
    tmp38 = tl.full([1, 1], 0.0, tl.float32)
    tmp39 = tl.where(tmp26, tmp37, tmp38)
    tmp40 = tl.broadcast_to(tmp39, [XBLOCK, R0_BLOCK])
    tmp42 = tl.sum(tmp40, 1)[:, None].to(tl.float32)
    tmp43 = tmp26.to(tl.int64)
    tmp44 = tl.broadcast_to(tmp43, [XBLOCK, R0_BLOCK])
    tmp46 = tl.sum(tmp44, 1)[:, None].to(tl.int64)
    tmp47 = tmp46.to(tl.float32)
    tmp48 = (tmp42 / tmp47)
    tl.debug_barrier()
    tl.store(in_out_ptr0 + (tl.full([1, 1], 0, tl.int32).broadcast_to(XBLOCK, 1)), tmp48, None)
