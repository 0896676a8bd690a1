"""The Jupyter project's kernel conformance suite (jupyter_kernel_test),
configured for Go cells of the pathnotes kernel. Every hook the suite offers
is filled in; run through the Go test TestConformance, which installs the
kernelspec into a temporary prefix first."""

import unittest

import jupyter_kernel_test


class PathnotesKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "pathnotes"

    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'fmt.Println("hello, world")'

    code_stderr = 'import "os"\nfmt.Fprintln(os.Stderr, "to stderr")'

    completion_samples = [
        {"text": "fmt.Sprin", "matches": {"Sprint", "Sprintf", "Sprintln"}},
        {"text": "import \"strings\"\nstrings.ToUpp", "matches": {"ToUpper", "ToUpperSpecial"}},
    ]

    complete_code_samples = [
        "x := 1",
        'fmt.Println("a")',
        "func f() int { return 1 }",
        "type point struct{ x, y int }",
    ]
    incomplete_code_samples = [
        "func f() {",
        "for i := 0; i < 3; i++ {",
        'fmt.Println("a"',
    ]
    invalid_code_samples = ["x := )", "x := 1)", "}"]

    code_page_something = ""  # Go has no pager payloads; the suite skips this hook

    code_generate_error = 'panic("boom")'

    code_execute_result = [
        {"code": "6*7", "result": "42"},
        {"code": "1.5 * 2", "result": "3"},
        {"code": "[]int{1, 2}", "result": "[1 2]"},
        {"code": "%%html\n<b>x</b>", "mime": "text/html", "result": "<b>x</b>"},
    ]

    code_display_data = [
        {"code": "%%display text/html\n<b>shown</b>", "mime": "text/html"},
        {"code": "%%display image/svg+xml\n<svg xmlns='http://www.w3.org/2000/svg'/>", "mime": "image/svg+xml"},
    ]

    # Glob patterns match the whole source: "6?7" is only the first sample.
    code_history_pattern = "6?7"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "fmt.Println"

    code_clear_output = '%clear\nfmt.Println("after clearing")'


if __name__ == "__main__":
    unittest.main()
