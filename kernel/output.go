package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pathnotes/pathnotes/kernel/session"
)

const (
	// streamDelay is how long stream text may wait to be published: long
	// enough to gather the lines of a loop into one message, short enough
	// that output of a long cell appears while it runs.
	streamDelay = 50 * time.Millisecond
	// streamChunk is the most text one stream message carries, so that a
	// cell printing megabytes sends several messages a front end can render
	// as they come.
	streamChunk = 1 << 20
)

// cellOutput is the session.Output of one execute_request: it publishes
// what the cell produces on iopub with the request as parent. It stays
// usable after the cell ends, for goroutines the cell left running.
type cellOutput struct {
	k          *Kernel
	parent     *Message
	ctx        context.Context // the cell's context: cancelled by an interrupt
	allowStdin bool

	mu       sync.Mutex
	name     string // stream of the pending text
	pending  []byte
	timer    *time.Timer
	finished bool // the cell has ended: no more input requests
}

var _ session.Output = (*cellOutput)(nil)

// Stream buffers text for the stdout or stderr stream; it is published
// within streamDelay, or at once when another kind of output follows.
func (o *cellOutput) Stream(name, text string) {
	if name != "stdout" && name != "stderr" {
		name = "stdout"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if name != o.name && len(o.pending) > 0 {
		o.flushLocked(true)
	}
	o.name = name
	o.pending = append(o.pending, text...)
	if len(o.pending) >= streamChunk {
		o.flushLocked(false)
	}
	if len(o.pending) > 0 && o.timer == nil {
		o.timer = time.AfterFunc(streamDelay, o.flush)
	}
}

// flush publishes the pending stream text.
func (o *cellOutput) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked(true)
}

// flushLocked publishes pending text in chunks of at most streamChunk
// bytes. Unless all is set, it keeps back an incomplete UTF-8 sequence at
// the end, whose remaining bytes are still to come.
func (o *cellOutput) flushLocked(all bool) {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	for len(o.pending) > 0 {
		n := min(len(o.pending), streamChunk)
		if n < len(o.pending) || !all {
			n = completeUTF8(o.pending[:n])
		}
		if n == 0 {
			if all {
				n = len(o.pending)
			} else {
				return
			}
		}
		o.k.publish(o.parent, "stream", map[string]any{"name": o.name, "text": string(o.pending[:n])})
		o.pending = o.pending[n:]
	}
	o.pending = nil
}

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a multi-byte character.
func completeUTF8(b []byte) int {
	for back := 1; back <= utf8.UTFMax && back <= len(b); back++ {
		c := b[len(b)-back]
		if !utf8.RuneStart(c) {
			continue
		}
		if !utf8.FullRune(b[len(b)-back:]) {
			return len(b) - back
		}
		break
	}
	return len(b)
}

// Display publishes a display_data, or an update_display_data of the output
// shown under displayID.
func (o *cellOutput) Display(b session.Bundle, displayID string, update bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked(true)
	content := map[string]any{"data": orEmpty(b.Data), "metadata": orEmpty(b.Metadata), "transient": map[string]any{}}
	if displayID != "" {
		content["transient"] = map[string]any{"display_id": displayID}
	}
	msgType := "display_data"
	if update {
		if displayID == "" {
			o.k.log.Warn("update_display_data without a display id, shown as new output", "msg_id", o.parent.Header.MsgID)
		} else {
			msgType = "update_display_data"
		}
	}
	o.k.publish(o.parent, msgType, content)
}

// ClearOutput publishes clear_output; with wait the front end clears when
// the next output arrives, which avoids flicker in animations.
func (o *cellOutput) ClearOutput(wait bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked(true)
	o.k.publish(o.parent, "clear_output", map[string]any{"wait": wait})
}

// Input asks the front end for a line of text through an input_request on
// the stdin socket, and waits for the reply or an interrupt.
func (o *cellOutput) Input(prompt string, password bool) (string, error) {
	o.mu.Lock()
	o.flushLocked(true)
	finished := o.finished
	o.mu.Unlock()
	switch {
	case !o.allowStdin:
		return "", errors.New("input: this front end does not accept input (allow_stdin is false)")
	case finished:
		return "", errors.New("input: the cell that asked for input has finished")
	}
drain: // drop replies to earlier requests that came too late
	for {
		select {
		case <-o.k.inputs:
		default:
			break drain
		}
	}
	h := NewHeader("input_request", o.k.session)
	frames, err := o.k.signer.Encode(o.parent.Identities, h, o.parent.RawHeader, nil,
		map[string]any{"prompt": prompt, "password": password}, nil)
	if err != nil {
		return "", fmt.Errorf("input: %w", err)
	}
	if err := o.k.sendFrames(o.k.stdin, frames, h); err != nil {
		return "", fmt.Errorf("input: %w", err)
	}
	for {
		select {
		case m := <-o.k.inputs:
			// jupyter_client sends input_reply without a parent header, so
			// only a reply that names another request is stale.
			var parent Header
			if json.Unmarshal(m.RawParent, &parent) == nil && parent.MsgID != "" && parent.MsgID != h.MsgID {
				o.k.log.Warn("input_reply to another request ignored", "msg_id", m.Header.MsgID, "parent_msg_id", parent.MsgID)
				continue
			}
			var reply struct {
				Value string `json:"value"`
			}
			if err := m.DecodeContent(&reply); err != nil {
				return "", fmt.Errorf("input: %w", err)
			}
			return reply.Value, nil
		case <-o.ctx.Done():
			return "", fmt.Errorf("input: interrupted while waiting for the user: %w", o.ctx.Err())
		}
	}
}

// finish publishes what is pending when the cell ends; later output (of
// goroutines) is still published, later input requests fail.
func (o *cellOutput) finish() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.finished = true
	o.flushLocked(true)
}
