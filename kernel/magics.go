package kernel

import (
	"context"
	"fmt"
	"mime"
	"strings"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// Magics returns the magics of the kernel itself: they publish protocol
// messages that no Go value stands for. The program that starts the kernel
// registers them in the session.
//
//	%clear [wait]   clear_output: clear what the cell has shown so far
//	                (with wait, once the next output arrives)
//	%%display MIME  display_data: show the rest of the cell as that MIME
//	                type, e.g. %%display text/html
func Magics() []session.Magic {
	return []session.Magic{
		{Name: "clear", Usage: "%clear [wait]",
			Help: "clear the output the cell has shown so far (with wait: once the next output arrives)",
			Run:  clearMagic},
		{Name: "display", Cell: true, Usage: "%%display MIME",
			Help: "show the rest of the cell as MIME (for example text/html or text/markdown) in a display_data",
			Run:  displayMagic},
	}
}

func clearMagic(_ context.Context, _ *session.Session, args, _ string, out session.Output) (*session.Bundle, error) {
	switch strings.TrimSpace(args) {
	case "":
		out.ClearOutput(false)
	case "wait":
		out.ClearOutput(true)
	default:
		return nil, fmt.Errorf("want %%clear or %%clear wait, got %%clear %s", args)
	}
	return nil, nil
}

func displayMagic(_ context.Context, _ *session.Session, args, body string, out session.Output) (*session.Bundle, error) {
	mimeType := strings.TrimSpace(args)
	if _, _, err := mime.ParseMediaType(mimeType); err != nil || !strings.Contains(mimeType, "/") || strings.Contains(mimeType, ";") {
		return nil, fmt.Errorf("want %%%%display TYPE/SUBTYPE (for example text/html), got %q", mimeType)
	}
	body = strings.TrimLeft(body, "\n")
	data := map[string]any{"text/plain": body}
	if mimeType != "text/plain" {
		data[mimeType] = body
		data["text/plain"] = fmt.Sprintf("<%s, %d bytes>", mimeType, len(body))
	}
	out.Display(session.Bundle{Data: data, Metadata: map[string]any{}}, "", false)
	return nil, nil
}
