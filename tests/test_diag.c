/* Diagnostics: the error class recorded next to the messages
 * (frontend/diag.h), independent of the message text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "frontend/diag.h"

static const struct pm_loc here = { 1, 3 };
static const struct pm_loc nowhere = { 0, 0 };

/* No error, no class; notes have none either. */
static void test_class_none(void **state)
{
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t.tc", "ab cd\n");
	assert_int_equal(pm_diags_class(&d), PM_ERR_NONE);
	pm_diag_note(&d, here, "just a note");
	assert_int_equal(pm_diags_class(&d), PM_ERR_NONE);
	assert_int_equal(d.nerrors, 0);
	pm_diags_clear(&d);
}

/* Each function records its class, and its text is the one the message
 * had when the prefix was spelled at the call site. */
static void test_class_each(void **state)
{
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t.tc", "ab cd\n");
	pm_diag_error(&d, here, "bad %s", "x");
	assert_int_equal(pm_diags_class(&d), PM_ERR_SPEC);
	assert_string_equal(pm_diags_text(&d),
		"t.tc:1:3: error: bad x\nab cd\n  ^\n");
	pm_diags_clear(&d);

	pm_diags_init(&d, "t.tc", "ab cd\n");
	pm_diag_plain(&d, "bad %d", 1);
	assert_int_equal(pm_diags_class(&d), PM_ERR_SPEC);
	assert_string_equal(pm_diags_text(&d), "polymma: error: bad 1\n");
	pm_diags_clear(&d);

	pm_diags_init(&d, "t.tc", "ab cd\n");
	pm_diag_unsupported(&d, here, "f%d operands", 32);
	assert_int_equal(pm_diags_class(&d), PM_ERR_UNSUPPORTED);
	assert_string_equal(pm_diags_text(&d),
		"t.tc:1:3: error: unsupported: f32 operands\nab cd\n  ^\n");
	pm_diags_clear(&d);

	pm_diags_init(&d, "t.tc", NULL);
	pm_diag_unsupported(&d, nowhere, "this");
	assert_string_equal(pm_diags_text(&d),
		"t.tc: error: unsupported: this\n");
	pm_diags_clear(&d);

	pm_diags_init(&d, "t.tc", "ab cd\n");
	pm_diag_internal(&d, "isl: %s", "oops");
	assert_int_equal(pm_diags_class(&d), PM_ERR_INTERNAL);
	assert_int_equal(d.nerrors, 1);
	assert_string_equal(pm_diags_text(&d),
		"polymma: error: internal error: isl: oops\n");
	pm_diags_clear(&d);
}

/* The getter returns the most severe class, whatever the order. */
static void test_class_most_severe(void **state)
{
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t.tc", NULL);
	pm_diag_internal(&d, "first");
	pm_diag_unsupported(&d, nowhere, "second");
	pm_diag_plain(&d, "third");
	assert_int_equal(pm_diags_class(&d), PM_ERR_INTERNAL);
	assert_int_equal(d.nerrors, 3);
	pm_diags_clear(&d);

	pm_diags_init(&d, "t.tc", NULL);
	pm_diag_plain(&d, "first");
	pm_diag_unsupported(&d, nowhere, "second");
	pm_diag_error(&d, nowhere, "third");
	assert_int_equal(pm_diags_class(&d), PM_ERR_UNSUPPORTED);
	pm_diags_clear(&d);
}

/* The class depends on the function, not on the text: a spec error that
 * mentions "internal error" stays a spec error. */
static void test_class_not_by_text(void **state)
{
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t.tc", NULL);
	pm_diag_plain(&d, "internal error: written by hand");
	assert_int_equal(pm_diags_class(&d), PM_ERR_SPEC);
	pm_diags_clear(&d);
}

/* pm_diags_clear forgets the class; the diagnostics can be used again. */
static void test_class_clear(void **state)
{
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t.tc", NULL);
	pm_diag_internal(&d, "x");
	pm_diags_clear(&d);
	assert_int_equal(pm_diags_class(&d), PM_ERR_NONE);
	assert_string_equal(pm_diags_text(&d), "");
	pm_diag_unsupported(&d, nowhere, "y");
	assert_int_equal(pm_diags_class(&d), PM_ERR_UNSUPPORTED);
	assert_string_equal(pm_diags_text(&d),
		"t.tc: error: unsupported: y\n");
	pm_diags_clear(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_none),
		cmocka_unit_test(test_class_each),
		cmocka_unit_test(test_class_most_severe),
		cmocka_unit_test(test_class_not_by_text),
		cmocka_unit_test(test_class_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
