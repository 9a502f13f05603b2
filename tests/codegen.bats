#!/usr/bin/env bats
# ir-codegen-ocl: the launch and program syntax it writes (read back byte
# for byte, checked by the verifier), and the OpenCL C it generates, built
# with clBuildProgram on POCL for every lowering test module.

setup() {
	load test_helper
	bats_require_minimum_version 1.5.0
}

@test "launch and program syntax: read back byte for byte" {
	cd "$BATS_TEST_DIRNAME/ir-parse"
	run -0 ir-parse launch.ir
	diff -u launch.out - <<< "$output"
	ir-parse launch.out | diff -u launch.out -
}

@test "invalid-launch.ir: launches checked against the kernel and the device" {
	expect_diagnostics ir-parse invalid-launch.ir
}
