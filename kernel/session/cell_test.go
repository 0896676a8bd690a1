package session

import "testing"

// TestStatementHeaders checks that the semicolons of if, for and switch
// headers do not cut a top-level statement: "err != nil { … }" after one
// would otherwise parse as a trailing expression (a composite literal).
func TestStatementHeaders(t *testing.T) {
	s := newSession(t)
	run(t, s, "func two() (int, error) { return 2, nil }\nx := 0")
	tests := []struct{ code, want string }{
		{"if v, err := two(); err != nil { panic(err) } else { x = v }\nx", "2"},
		{"if v, err := two(); err != nil { panic(err) }", ""},
		{"if x = 0; x > 1 { x = 5 } else if y := 3; y > 2 { x = y }\nx", "3"},
		{"for i := 0; i < 3; i++ { x += i }\nx", "6"},
		{"switch y := x; y { case 6: x = 60 }\nx", "60"},
		{"if v, err := two(); err == nil { x = v }", ""},
	}
	for _, tt := range tests {
		if got := run(t, s, tt.code); got != tt.want {
			t.Errorf("%q = %q, want %q", tt.code, got, tt.want)
		}
	}
}
