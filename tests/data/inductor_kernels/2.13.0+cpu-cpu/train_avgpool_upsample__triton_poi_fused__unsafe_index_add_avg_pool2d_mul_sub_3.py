
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_cpu()

@triton_heuristics.pointwise(
    size_hints={'x': 256}, 
    filename=__file__,
    triton_meta={'signature': {'in_out_ptr0': '*fp32', 'in_ptr0': '*i64', 'in_ptr1': '*i64', 'in_ptr2': '*fp32', 'in_ptr3': '*i64', 'in_ptr4': '*i64', 'in_ptr5': '*fp32', 'in_ptr6': '*fp32', 'xnumel': 'i32', 'XBLOCK': 'constexpr'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'native_matmul': False, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (4,): [['tt.divisibility', 16]], (5,): [['tt.divisibility', 16]], (6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'Grid1D', 'kernel_name': 'triton_poi_fused__unsafe_index_add_avg_pool2d_mul_sub_3', 'mutated_arg_names': ['in_out_ptr0'], 'optimize_mem': False, 'no_x_dim': False, 'atomic_add_found': False, 'num_load': 6, 'num_store': 1, 'num_reduction': 0, 'autotune_hints': set(), 'tiling_scores': {'x': 2368}, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
    min_elem_per_thread=0
)
@triton.jit
def triton_poi_fused__unsafe_index_add_avg_pool2d_mul_sub_3(in_out_ptr0, in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, in_ptr6, xnumel, XBLOCK : tl.constexpr):
    xnumel = 256
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x1 = ((xindex // 8) % 8)
    x0 = (xindex % 8)
    x2 = xindex // 64
    x4 = xindex
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')
    tmp5 = tl.load(in_ptr1 + (x0), xmask, eviction_policy='evict_last')
    tmp18 = tl.load(in_ptr3 + (x1), xmask, eviction_policy='evict_last')
    tmp30 = tl.load(in_ptr4 + (x0), xmask, eviction_policy='evict_last')
    tmp43 = tl.load(in_ptr5 + (x0), xmask, eviction_policy='evict_last')
    tmp58 = tl.load(in_ptr6 + (x1), xmask, eviction_policy='evict_last')
    tmp1 = (tl.full([XBLOCK], 4, tl.int32)).to(tl.int32)
    tmp2 = tmp0 + tmp1
    tmp3 = tmp0 < 0
    tmp4 = tl.where(tmp3, tmp2, tmp0)
    tmp6 = tmp5 + tmp1
    tmp7 = tmp5 < 0
    tmp8 = tl.where(tmp7, tmp6, tmp5)
    tmp9 = tl.load(in_ptr2 + (2*tmp8 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp10 = tl.load(in_ptr2 + (1 + 2*tmp8 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp11 = tmp9 + tmp10
    tmp12 = tl.load(in_ptr2 + (8 + 2*tmp8 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp13 = tmp11 + tmp12
    tmp14 = tl.load(in_ptr2 + (9 + 2*tmp8 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp15 = tmp13 + tmp14
    tmp16 = tl.full([1], 4.0, tl.float32)
    tmp17 = (tmp15 / tmp16)
    tmp19 = tmp18 + tmp1
    tmp20 = tmp18 < 0
    tmp21 = tl.where(tmp20, tmp19, tmp18)
    tmp22 = tl.load(in_ptr2 + (2*tmp8 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp23 = tl.load(in_ptr2 + (1 + 2*tmp8 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp24 = tmp22 + tmp23
    tmp25 = tl.load(in_ptr2 + (8 + 2*tmp8 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp26 = tmp24 + tmp25
    tmp27 = tl.load(in_ptr2 + (9 + 2*tmp8 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp28 = tmp26 + tmp27
    tmp29 = (tmp28 / tmp16)
    tmp31 = tmp30 + tmp1
    tmp32 = tmp30 < 0
    tmp33 = tl.where(tmp32, tmp31, tmp30)
    tmp34 = tl.load(in_ptr2 + (2*tmp33 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp35 = tl.load(in_ptr2 + (1 + 2*tmp33 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp36 = tmp34 + tmp35
    tmp37 = tl.load(in_ptr2 + (8 + 2*tmp33 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp38 = tmp36 + tmp37
    tmp39 = tl.load(in_ptr2 + (9 + 2*tmp33 + 16*tmp21 + 64*x2), xmask, eviction_policy='evict_last')
    tmp40 = tmp38 + tmp39
    tmp41 = (tmp40 / tmp16)
    tmp42 = tmp41 - tmp29
    tmp44 = tmp42 * tmp43
    tmp45 = tmp29 + tmp44
    tmp46 = tl.load(in_ptr2 + (2*tmp33 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp47 = tl.load(in_ptr2 + (1 + 2*tmp33 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp48 = tmp46 + tmp47
    tmp49 = tl.load(in_ptr2 + (8 + 2*tmp33 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp50 = tmp48 + tmp49
    tmp51 = tl.load(in_ptr2 + (9 + 2*tmp33 + 16*tmp4 + 64*x2), xmask, eviction_policy='evict_last')
    tmp52 = tmp50 + tmp51
    tmp53 = (tmp52 / tmp16)
    tmp54 = tmp53 - tmp17
    tmp55 = tmp54 * tmp43
    tmp56 = tmp17 + tmp55
    tmp57 = tmp56 - tmp45
    tmp59 = tmp57 * tmp58
    tmp60 = tmp45 + tmp59
    tl.store(in_out_ptr0 + (x4), tmp60, xmask)
