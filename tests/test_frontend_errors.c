/* Frontend tests: every error the frontend reports, and robustness on
 * bad input (NULL arguments, leaks, deep nesting). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/frontend_util.h"

/* ---- errors ---- */

static void test_err_undeclared(void **state)
{
	(void)state;
	parse_err(HDR "  C(i, j) +=! A(i, k) * Bx(k, j)\n}\n",
		"t.tc:2:25: error: ", "tensor 'Bx' is not declared");
	/* the source line and caret follow */
	parse_err(HDR "  C(i, j) +=! A(i, k) * Bx(k, j)\n}\n",
		"t.tc:2:25: error: tensor 'Bx' is not declared\n"
		"  C(i, j) +=! A(i, k) * Bx(k, j)\n"
		"                        ^\n", "");
}

static void test_err_arity(void **state)
{
	(void)state;
	parse_err(HDR "  C(i, j) +=! A(i) * B(k, j)\n}\n", "t.tc:2:15: error: ",
		"wrong number of indices for 'A': expected 2, got 1");
	parse_err(HDR "  C(i, j, k) +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:2:3: error: ",
		"wrong number of indices for 'C': expected 2, got 3");
}

static void test_err_size_conflict(void **state)
{
	(void)state;
	/* B is (K, N): read B(j, k) makes j range over K and k over N */
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(j, k)\n}\n",
		"t.tc:2:27: error: ",
		"index 'j' ranges over K here (dimension 1 of 'B') but over N in 'C' (dimension 2)");
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(j, k)\n}\n", "t.tc:2:27: error: ",
		"t.tc:2:30: error: index 'k' ranges over N here (dimension 2 of 'B') but over K in 'A' (dimension 2)");
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(j, k)\n}\n", "t.tc:2:27: error: ",
		"t.tc:2:20: note: 'k' first ranges over K here");
	/* literal against literal, literal against symbol */
	parse_err("def g(f32(64) x, f32(32) y) -> (f32(64) z) {\n"
		"  z(i) = x(i) + y(i)\n}\n", "t.tc:2:19: error: ",
		"index 'i' ranges over 32 here (dimension 1 of 'y') but over 64 in 'z'");
	parse_err("def g(f32(64) x, f32(M) y) -> (f32(64) z) {\n"
		"  z(i) = x(i) + y(i)\n}\n", "t.tc:2:19: error: ",
		"ranges over M here");
}

static void test_err_non_plain_index(void **state)
{
	(void)state;
	parse_err(HDR "  C(i, j) +=! A(i+1, k) * B(k, j)\n}\n",
		"t.tc:2:17: error: ",
		"index 1 of 'A' is not a plain index variable");
	parse_err(HDR "  C(i, j) +=! A(i, (k)) * B(k, 2)\n}\n",
		"t.tc:2:32: error: ",
		"index 2 of 'B' is not a plain index variable");
	parse_err(HDR "  C(i, j * 2) +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:2:8: error: ",
		"index 2 of 'C' is not a plain index variable");
}

static void test_err_unknown_type(void **state)
{
	(void)state;
	parse_err("def g(f64(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:7: error: ", "unknown type 'f64'");
	parse_err("def g(f32(M) x) -> (half(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:21: error: ", "unknown type 'half'");
}

static void test_err_unknown_function(void **state)
{
	(void)state;
	parse_err(HDR "  C(i, j) +=! foo(A(i, k)) * B(k, j)\n}\n",
		"t.tc:2:15: error: ", "unknown function 'foo'");
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(k, j)\n  C(i, j) = Relu(C(i, j) + 1)\n}\n",
		"t.tc:3:13: error: ", "unknown function 'Relu'");
}

static void test_err_function_arity(void **state)
{
	(void)state;
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(k, j)\n  C(i, j) = max(C(i, j))\n}\n",
		"t.tc:3:13: error: ",
		"function 'max' takes 2 arguments, but 1 given");
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(k, j)\n  C(i, j) = relu(C(i, j), 0)\n}\n",
		"t.tc:3:13: error: ",
		"function 'relu' takes 1 argument, but 2 given");
}

static void test_err_input_written(void **state)
{
	(void)state;
	parse_err(HDR "  A(i, k) = B(k, i)\n  C(i, j) +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:2:3: error: ", "cannot write to input 'A'");
	parse_err(HDR "  A(i, k) = B(k, i)\n  C(i, j) +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:2:3: error: ",
		"t.tc:1:17: note: 'A' is declared as a parameter here");
}

static void test_err_output_not_written(void **state)
{
	(void)state;
	parse_err("def g(f32(M) x) -> (f32(M) y, f32(M) z) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:38: error: ", "output 'z' is never written");
}

static void test_err_temp_read_before_write(void **state)
{
	(void)state;
	parse_err(HDR "  C(i, j) = T(i, j)\n  T(i, j) +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:2:13: error: ", "temporary 'T' is read before it is written");
	/* its own first write */
	parse_err(HDR "  T(i, j) +=! T(i, j) + A(i, k) * B(k, j)\n"
		"  C(i, j) = T(i, j)\n}\n",
		"t.tc:2:15: error: ", "temporary 'T' is read before it is written");
	/* no cascade: the only error is the first one */
	parse_err(HDR "  T(i, j) += A(i, k) * B(k, j)\n  C(i, j) = T(i, j)\n}\n",
		"t.tc:2:3: error: temporary 'T' is updated with '+=' before it is written\n"
		"  T(i, j) += A(i, k) * B(k, j)\n  ^\n", "");
	/* size of a temporary that cannot be inferred */
	parse_err(HDR "  T(i, j) = A(i, i)\n  C(i, j) = T(i, j)\n}\n",
		"t.tc:2:18: error: ", "index 'i' ranges over K");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  t(i, j) = x(i)\n  y(i) = x(i)\n}\n",
		"t.tc:2:8: error: ",
		"cannot infer the size of index 'j' of temporary 't'");
}

static void test_err_duplicate_lhs_var(void **state)
{
	(void)state;
	parse_err("def g(f32(M, M) x) -> (f32(M, M) y) {\n  y(i, i) = x(i, i)\n}\n",
		"t.tc:2:8: error: ",
		"index variable 'i' appears twice on the left-hand side");
}

static void test_err_reduction_in_assign(void **state)
{
	(void)state;
	parse_err(HDR "  C(i, j) = A(i, k) * B(k, j)\n}\n", "t.tc:2:18: error: ",
		"index 'k' is not on the left-hand side");
}

static void test_err_syntax(void **state)
{
	(void)state;
	/* missing ')' */
	parse_err(HDR "  C(i, j +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:2:10: error: ", "expected ',' or ')', found '+=!'");
	parse_err("def g(f32(M, K x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:16: error: ", "expected ',' or ')', found 'x'");
	parse_err(HDR "  C(i, j) +=! (A(i, k) * B(k, j)\n}\n",
		"t.tc:3:1: error: ", "expected ')', found '}'");
	/* unexpected tokens */
	parse_err(HDR "  C(i, j) +=! * A(i, k)\n}\n",
		"t.tc:2:15: error: ", "expected an expression, found '*'");
	parse_err(HDR "  C(i, j) +=! A(i, k) B(k, j)\n}\n",
		"t.tc:2:23: error: ",
		"expected an operator or the end of the statement, found 'B'");
	parse_err(HDR "  C(i, j) == A(i, k)\n}\n",
		"t.tc:2:12: error: ", "expected an expression, found '='");
	parse_err(HDR "  C(i, j) A(i, k)\n}\n",
		"t.tc:2:11: error: ", "expected '=', '+=', '+=!', 'max=!' or 'min=!', found 'A'");
	parse_err(HDR "  C = A(i, k)\n}\n",
		"t.tc:2:5: error: ", "expected '(' after the tensor name, found '='");
	parse_err(HDR "  C(i, j) = A(i, j) @ 2\n}\n",
		"t.tc:2:21: error: ", "unexpected character '@'");
	parse_err("def g(f32(M) x) (f32(M) y) {\n}\n",
		"t.tc:1:17: error: ", "expected '->', found '('");
	parse_err("def g(f32() x) -> (f32(M) y) {\n}\n",
		"t.tc:1:11: error: ", "expected a size symbol or an integer, found ')'");
	parse_err("def g(f32(M) x) -> () {\n}\n",
		"t.tc:1:21: error: ", "expected an output type, found ')'");
	parse_err("f(f32(M) x) -> (f32(M) y) {\n}\n",
		"t.tc:1:1: error: ", "expected 'def', found 'f'");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\ndef h",
		"t.tc:4:1: error: ", "only one 'def' per file is supported");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n} }",
		"t.tc:3:3: error: ", "expected end of input after '}', found '}'");
	parse_err(HDR "  C(i, j) = A(i, j) + 1e\n}\n",
		"t.tc:2:23: error: ", "invalid number '1e'");
	parse_err(HDR "  C(i, j) = A(i, j) + 1e999\n}\n",
		"t.tc:2:23: error: ", "number '1e999' is out of range");
	parse_err(HDR "  C(i, j) = A(i, j) + 12ab_3\n}\n",
		"t.tc:2:23: error: ", "invalid number '12ab_3'");
	parse_err(HDR "  C() = 1\n}\n",
		"t.tc:2:5: error: ", "expected an index or an argument, found ')'");
}

static void test_err_unterminated(void **state)
{
	(void)state;
	/* reported just after the last token */
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(k, j)\n",
		"t.tc:2:32: error: ",
		"expected '}' at the end of def 'f', found end of input");
	parse_err(HDR "  C(i, j) +=! A(i, k) * B(k, j)\n   # comment\n\n",
		"t.tc:2:32: error: ", "t.tc:1:50: note: the body of 'f' starts here");
	parse_err("def g(f32(M) x", "t.tc:1:15: error: ",
		"expected ',' or ')', found end of input");
	parse_err(HDR "  C(i, j) = A(i, j) +", "t.tc:2:22: error: ",
		"expected an expression, found end of input");
}

static void test_err_duplicate_tensor(void **state)
{
	(void)state;
	parse_err("def g(f32(M) x, f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:24: error: ", "redefinition of tensor 'x'");
	parse_err("def g(f32(M) x) -> (f32(M) x) {\n  x(i) = x(i)\n}\n",
		"t.tc:1:28: error: ", "t.tc:1:14: note: previous declaration of 'x' is here");
}

/* pm_ names belong to generated code (locals, split-K parameters): a
 * size symbol, tensor, temporary or index variable so named is an error,
 * not an isl syntax error later; the def name (the launcher's) may. */
static void test_err_reserved_names(void **state)
{
	(void)state;
	parse_err("def g(f16(pm_k0_0, K) A, f16(K, N) B) -> (f16(pm_k0_0, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n}\n", "t.tc:1:11: error: ",
		"'pm_k0_0': names starting with 'pm_' are reserved for generated "
		"code");
	parse_err("def g(f32(M) pm_x) -> (f32(M) y) {\n  y(i) = pm_x(i)\n}\n",
		"t.tc:1:14: error: ", "'pm_x': names starting with 'pm_'");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  y(pm_i) = x(pm_i)\n}\n",
		"t.tc:2:5: error: ", "'pm_i': names starting with 'pm_'");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  pm_t(i) = x(i)\n"
		"  y(i) = pm_t(i)\n}\n", "t.tc:2:3: error: ",
		"'pm_t': names starting with 'pm_'");
}

static void test_err_empty(void **state)
{
	(void)state;
	parse_err("", "t.tc:1:1: error: ", "empty spec: expected 'def'");
	parse_err("  \n# only a comment\n", "t.tc:1:1: error: ",
		"empty spec: expected 'def'");
}

static void test_err_misc(void **state)
{
	struct pm_diags d;
	(void)state;

	parse_err("def g(f32(M) relu) -> (f32(M) y) {\n  y(i) = relu(i)\n}\n",
		"t.tc:1:14: error: ", "'relu' is a function name");
	parse_err("def g(f32(M) M) -> (f32(M) y) {\n  y(i) = M(i)\n}\n",
		"t.tc:1:14: error: ", "'M' names both a tensor and a size symbol");
	parse_err("def g(f32(0) x) -> (f32(4) y) {\n  y(i) = 1\n}\n",
		"t.tc:1:11: error: ", "dimension 1 of 'x' must be positive");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  y(i) = x + 1\n}\n",
		"t.tc:2:10: error: ", "tensor 'x' is read without indices");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  y(i) = i\n}\n",
		"t.tc:2:10: error: ", "'i' is not a tensor read");
	/* scalars: inputs, or outputs only as reduction targets; read
	 * without indices */
	parse_err("def g(f32(M) x) -> (f32 y) {\n  y(i) = x(i)\n}\n",
		"t.tc:2:3: error: ", "output 'y' is a scalar: it is written "
		"only as the target of a reduction ('y +=! ...'");
	parse_err("def g(f32(M) x) -> (f32 y) {\n  y = x(i)\n}\n",
		"t.tc:2:5: error: ", "expected '(' after the tensor name");
	parse_err("def g(f32(M) x) -> (f32 y) {\n  y += x(i)\n}\n",
		"t.tc:2:5: error: ", "expected '(' after the tensor name");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  y +=! x(i)\n}\n",
		"t.tc:2:3: error: ", "wrong number of indices for 'y': "
		"expected 1, got 0");
	parse_err("def g(f32(M) x) -> (f32 y) {\n  y max=! x(i)\n  y(i) = "
		"x(i)\n}\n", "t.tc:3:3: error: ", "output 'y' is a scalar");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  y(i) max= x(i)\n}\n",
		"t.tc:2:8: error: ", "expected '=', '+=', '+=!', 'max=!' or "
		"'min=!'");
	parse_err("def g(f32(M) x) -> (f32 y) {\n  y x(i)\n}\n",
		"t.tc:2:5: error: ", "expected '(' after the tensor name");
	parse_err("def g(f32(M) x, f32 s) -> (f32(M) y) {\n  y(i) = x(i) * "
		"s(i)\n}\n", "t.tc:2:17: error: ", "wrong number of indices "
		"for 's': expected 0, got 1");
	parse_err("def g(f32(M) x, f32 s) -> (f32(M) y) {\n  y(i) = x(i) * "
		"s()\n}\n", "t.tc:2:19: error: ", "expected an index or an "
		"argument");
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  relu(i) = x(i)\n  y(i) = x(i)\n}\n",
		"t.tc:2:3: error: ", "cannot assign to function 'relu'");
	parse_err("def g(f32(M, 1, 1, 1, 1, 1, 1, 1, 1) x) -> (f32(M) y) {\n}\n",
		"t.tc:1:35: error: ", "too many dimensions (at most 8)");

	/* several independent errors are all reported */
	pm_diags_init(&d, "t.tc", NULL);
	assert_null(pm_spec_parse(HDR "  C(i, j) +=! A(i, k) * X(k, j)\n"
		"  C(i, j) = Y(i, j)\n}\n", "t.tc", &d));
	assert_int_equal(d.nerrors, 2);
	assert_non_null(strstr(d.buf, "t.tc:2:25: error: tensor 'X' is not declared\n"
		"  C(i, j) +=! A(i, k) * X(k, j)\n"));
	assert_non_null(strstr(d.buf, "t.tc:3:13: error: tensor 'Y' is not declared\n"));
	/* the text was borrowed for the call only */
	assert_null(d.text);
	pm_diags_clear(&d);
}

static void test_null_args(void **state)
{
	struct pm_diags d;
	struct pm_spec *s;
	(void)state;

	/* no diags: still no crash, nothing leaked */
	s = pm_spec_parse("def g(", "t.tc", NULL);
	assert_null(s);
	s = pm_spec_parse(gemm_bias_relu, NULL, NULL);
	assert_non_null(s);
	assert_string_equal(s->filename, "<input>");
	pm_spec_free(s);
	pm_spec_free(NULL);

	pm_diags_init(&d, "t.tc", NULL);
	assert_null(pm_spec_parse(NULL, "t.tc", &d));
	assert_string_equal(d.buf, "polymma: error: no spec text given\n");
	pm_diags_clear(&d);
}

/* Parsing then freeing leaks nothing (run under ASan / valgrind), on valid
 * specs, on every prefix of one, and on single-byte mutations. */
static void test_no_leaks_and_robust(void **state)
{
	static const char subst[] = "()+-*/=!#,{}x1.e\n ";
	size_t n = strlen(gemm_bias_relu), i, j;
	char *buf = malloc(n + 1);
	int round;
	(void)state;

	assert_non_null(buf);
	for (round = 0; round < 3; round++) {
		struct pm_spec *s = parse_ok(gemm_bias_relu);
		pm_spec_free(s);
	}
	for (i = 0; i <= n; i++) {
		struct pm_diags d;

		memcpy(buf, gemm_bias_relu, i);
		buf[i] = '\0';
		pm_diags_init(&d, "p.tc", buf);
		pm_spec_free(pm_spec_parse(buf, "p.tc", &d));
		assert_true(i >= n - 1 || d.nerrors > 0);
		pm_diags_clear(&d);
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < sizeof(subst) - 1; j++) {
			struct pm_diags d;
			struct pm_spec *s;

			memcpy(buf, gemm_bias_relu, n + 1);
			buf[i] = subst[j];
			pm_diags_init(&d, "m.tc", buf);
			s = pm_spec_parse(buf, "m.tc", &d);
			assert_true((s != NULL) == (d.nerrors == 0));
			pm_spec_free(s);
			pm_diags_clear(&d);
		}
	}
	free(buf);
}

static void test_deep_nesting(void **state)
{
	size_t depth = 5000, i;
	const char *head = HDR "  C(i, j) = ";
	char *buf = malloc(strlen(head) + 2 * depth + 32);
	char *p = buf;
	(void)state;

	assert_non_null(buf);
	p += sprintf(p, "%s", head);
	for (i = 0; i < depth; i++)
		*p++ = '(';
	p += sprintf(p, "1");
	for (i = 0; i < depth; i++)
		*p++ = ')';
	sprintf(p, "\n}\n");
	parse_err(buf, "t.tc:2:", "nested too deeply");
	free(buf);

	/* a long flat sum is a deep tree too */
	buf = malloc(strlen(head) + 5 * depth + 32);
	assert_non_null(buf);
	p = buf + sprintf(buf, "%s1", head);
	for (i = 0; i < depth; i++)
		p += sprintf(p, " + 1");
	sprintf(p, "\n}\n");
	parse_err(buf, "t.tc:2:", "nested too deeply");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err_undeclared),
		cmocka_unit_test(test_err_arity),
		cmocka_unit_test(test_err_size_conflict),
		cmocka_unit_test(test_err_non_plain_index),
		cmocka_unit_test(test_err_unknown_type),
		cmocka_unit_test(test_err_unknown_function),
		cmocka_unit_test(test_err_function_arity),
		cmocka_unit_test(test_err_input_written),
		cmocka_unit_test(test_err_output_not_written),
		cmocka_unit_test(test_err_temp_read_before_write),
		cmocka_unit_test(test_err_duplicate_lhs_var),
		cmocka_unit_test(test_err_reduction_in_assign),
		cmocka_unit_test(test_err_syntax),
		cmocka_unit_test(test_err_unterminated),
		cmocka_unit_test(test_err_duplicate_tensor),
		cmocka_unit_test(test_err_reserved_names),
		cmocka_unit_test(test_err_empty),
		cmocka_unit_test(test_err_misc),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_no_leaks_and_robust),
		cmocka_unit_test(test_deep_nesting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
