
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties

@triton_heuristics.foreach(
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'in_ptr1': '*fp32', 'in_ptr2': '*fp32', 'in_ptr3': '*fp32', 'in_ptr4': '*fp32', 'in_ptr5': '*fp32', 'out_ptr0': '*fp32', 'out_ptr1': '*fp32', 'out_ptr2': '*fp32'}, 'device': DeviceProperties(type='cpu', index=None, multi_processor_count=2, cc='', major=None, regs_per_multiprocessor=None, max_threads_per_multi_processor=None, max_threads_per_block=1024, warp_size=None), 'constants': {}, 'enable_fp_fusion': True, 'launch_pdl': False, 'disable_ftz': False, 'configs': [{(6,): [['tt.divisibility', 16]], (7,): [['tt.divisibility', 16]], (8,): [['tt.divisibility', 16]]}]},
    inductor_meta={'grid_type': 'SequentialComboKernelGrid', 'combo_grid_meta': {'num_kernels': 3, 'min_blocks': 0, 'autotune_grouping': True, 'default_config': {'XBLOCK': 1024}, 'no_x_dim_0': False, 'xnumel_0': 128, 'no_x_dim_1': False, 'xnumel_1': 128, 'no_x_dim_2': False, 'xnumel_2': 128}, 'kernel_name': 'triton_for_fused_0', 'mutated_arg_names': [], 'optimize_mem': True, 'backend_hash': '8E8BAF4C42480F9CEE9D62A35E43AE470FDD23C56A78BF59E02EECEE60E59743', 'assert_indirect_indexing': True, 'autotune_local_cache': True, 'autotune_pointwise': True, 'autotune_remote_cache': None, 'force_disable_caches': False, 'dynamic_scale_rblock': True, 'incremental_autotune': False, 'max_autotune': False, 'max_autotune_pointwise': False, 'min_split_scan_rblock': 256, 'spill_threshold': 16, 'store_cubin': False, 'deterministic': False, 'batch_invariant': False, 'force_filter_reduction_configs': False, 'mix_order_reduction_allow_multi_stages': True, 'dynamic_disable_pipelining': True, 'are_deterministic_algorithms_enabled': False},
)
@triton.jit
def triton_for_fused_0(in_ptr0, in_ptr1, in_ptr2, in_ptr3, in_ptr4, in_ptr5, out_ptr0, out_ptr1, out_ptr2):
    pid = tl.program_id(0)
    XBLOCK: tl.constexpr = 1024
    num_xblocks_0 = tl.cdiv(128, XBLOCK)
    num_xblocks_1 = num_xblocks_0 + tl.cdiv(128, XBLOCK)
    num_xblocks_2 = num_xblocks_1 + tl.cdiv(128, XBLOCK)
    if pid < num_xblocks_0:
        pid_offset = pid
        xnumel = 128
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x0 = xindex
        tmp0 = tl.load(in_ptr0 + (x0), xmask)
        tmp3 = tl.load(in_ptr1 + (x0), xmask)
        tmp1 = tl.full([1], 1.0, tl.float32)
        tmp2 = tmp0 * tmp1
        tmp4 = tl.full([1], 0.5, tl.float32)
        tmp5 = tmp3 * tmp4
        tmp6 = tmp2 + tmp5
        tl.store(out_ptr0 + (x0), tmp6, xmask)
    elif pid < num_xblocks_1:
        pid_offset = pid - num_xblocks_0
        xnumel = 128
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x1 = xindex
        tmp7 = tl.load(in_ptr2 + (x1), xmask)
        tmp10 = tl.load(in_ptr3 + (x1), xmask)
        tmp8 = tl.full([1], 1.0, tl.float32)
        tmp9 = tmp7 * tmp8
        tmp11 = tl.full([1], 0.5, tl.float32)
        tmp12 = tmp10 * tmp11
        tmp13 = tmp9 + tmp12
        tl.store(out_ptr1 + (x1), tmp13, xmask)
    elif pid < num_xblocks_2:
        pid_offset = pid - num_xblocks_1
        xnumel = 128
        r0_numel = 1
        xoffset = pid_offset * XBLOCK
        xindex = xoffset + tl.arange(0, XBLOCK)[:]
        xmask = xindex < xnumel
        x2 = xindex
        tmp14 = tl.load(in_ptr4 + (x2), xmask)
        tmp17 = tl.load(in_ptr5 + (x2), xmask)
        tmp15 = tl.full([1], 1.0, tl.float32)
        tmp16 = tmp14 * tmp15
        tmp18 = tl.full([1], 0.5, tl.float32)
        tmp19 = tmp17 * tmp18
        tmp20 = tmp16 + tmp19
        tl.store(out_ptr2 + (x2), tmp20, xmask)
    else:
        pass
