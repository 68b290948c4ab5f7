/*
 * A library a test plugin NEEDs that lives outside the system directories:
 * the host may load it only as a declared host library found in a
 * configured library directory.
 */
__attribute__((visibility("default"))) int algenta_test_dependency_answer(void) { return 42; }
