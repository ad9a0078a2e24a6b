# bench/gpu/conv2d on a machine without a GPU. The benchmark itself must skip cleanly (where there
# is a GPU, `--limit 0` runs no row instead); its dry run decodes the 201 seed workloads, checks the
# cuDNN descriptor parameters of the 186 conv layers against cuDNN (0 when libcudnn is absent) and
# builds one layer per operator/template/batch for cuda; `--emulate` runs the GPU code path on the
# CUDA emulator for four small layers (depthwise, conv2d 1x1, winograd, dense) against CPU loops.
if(MINITVM_BUILD_BENCH)
  add_test(NAME bench_gpu_conv2d_no_gpu COMMAND minitvm-bench-gpu-conv2d --limit 0)
  set_tests_properties(bench_gpu_conv2d_no_gpu PROPERTIES LABELS unit TIMEOUT 60
    PASS_REGULAR_EXPRESSION "SKIP minitvm-bench-gpu-conv2d: no CUDA GPU \\(.+\\)|\n0 passed, 0 failed, 0 not checked\n")
  add_test(NAME bench_gpu_conv2d_dry_run COMMAND minitvm-bench-gpu-conv2d --dry-run)
  set_tests_properties(bench_gpu_conv2d_dry_run PROPERTIES LABELS unit TIMEOUT 300
    PASS_REGULAR_EXPRESSION
      "dry run: 201 workloads decoded, (186|0) conv descriptor sets checked against cuDNN, 0 not runnable by cuDNN, 12 of 12 layers built[^\n]*\n[0-9]+ passed, 0 failed\n"
    FAIL_REGULAR_EXPRESSION "FAIL")
  add_test(NAME bench_gpu_conv2d_emulated COMMAND minitvm-bench-gpu-conv2d --emulate --repeat 1 --min-repeat-ms 0
    --filter "mobilenet_v2_bs_1.log:1 " --filter "mobilenet_v2_bs_1.log:16 " --filter "resnet50v1_bs_1.log:22 "
    --filter "mobilenet_v2_bs_1.log:29 ")
  set_tests_properties(bench_gpu_conv2d_emulated PROPERTIES LABELS e2e TIMEOUT 300
    PASS_REGULAR_EXPRESSION "\n4 passed, 0 failed, 0 not checked\n" FAIL_REGULAR_EXPRESSION "FAIL|NOT_")
  # bench/gpu/pool without a GPU: every kernel of the grid compiles (NVRTC) and assembles (ptxas sm_90).
  add_test(NAME bench_gpu_pool_dry_run COMMAND minitvm-bench-gpu-pool --dry-run)
  set_tests_properties(bench_gpu_pool_dry_run PROPERTIES LABELS unit TIMEOUT 300
    PASS_REGULAR_EXPRESSION "dry run: 64 of 64 rows compiled \\(NVRTC \\+ ptxas sm_90\\), 0 kernels spilling" FAIL_REGULAR_EXPRESSION "FAIL")
endif()
