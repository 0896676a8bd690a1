package magics

import (
	"context"
	"fmt"
	"strings"

	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// profileMagic is %%profile: the cell's Go code runs with every kernel
// launch profiled, and the profile shows after the cell's own output.
var profileMagic = session.Magic{
	Name:  "profile",
	Cell:  true,
	Usage: "%%profile",
	Help: "run the cell's Go code and show a profile of every kernel it launched, side by side: global requests and sectors " +
		"(coalescing), shared-memory bank conflicts, divergent branches, occupancy; the emulator counts them, a card gives registers and occupancy",
	Run: runProfileMagic,
}

// runProfileMagic runs a %%profile cell.
func runProfileMagic(ctx context.Context, s *session.Session, args, body string, out session.Output) (*session.Bundle, error) {
	if strings.TrimSpace(args) != "" {
		return nil, fmt.Errorf("%%%%profile takes no arguments, got %q", args)
	}
	p := gpu.StartProfile()
	b, err := s.RunCode(ctx, body)
	launches := p.Stop()
	switch {
	case len(launches) > 0:
		data, meta := display.Profile(launches...).MIMEBundle()
		s.Display(session.Bundle{Data: data, Metadata: meta}, "", false)
	case err == nil:
		out.Stream("stderr", "%%profile: the cell launched no kernel\n")
	}
	return b, err
}
