package kernel

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// executeRequest is the content of an execute_request. Fields that a front
// end may leave out are pointers, so that their protocol defaults apply.
type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      *bool             `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// exitWords are the cells that ask the front end to leave (a console exits,
// a notebook ignores the request). They are not Go identifiers anyone
// would show alone in a cell.
var exitWords = map[string]bool{"exit": true, "quit": true, "exit()": true, "quit()": true}

// orTrue reads an optional protocol flag whose default is true.
func orTrue(b *bool) bool { return b == nil || *b }

// execute runs one execute_request and returns how many of the requests
// queued behind it must be aborted: when the cell fails with stop_on_error,
// those that were waiting before its error went out, 0 otherwise.
//
// A silent request publishes no execute_input or execute_result and does not
// count; its streams and errors are still shown, as ipykernel does, so a
// front end's background code can still be debugged.
func (k *Kernel) execute(ctx context.Context, m *Message) (abortQueued int) {
	var req executeRequest
	if err := m.DecodeContent(&req); err != nil {
		k.log.Warn("execute_request dropped", "msg_id", m.Header.MsgID, "err", err)
		k.reply(k.shell, m, "execute_reply", errorContent(&session.CellError{Name: "BadRequest", Value: err.Error()}, k.execCount))
		return 0
	}
	store := orTrue(req.StoreHistory) && !req.Silent
	if store {
		k.execCount++
		if err := k.history.AddInput(k.execCount, req.Code); err != nil {
			k.log.Warn("history not saved", "msg_id", m.Header.MsgID, "err", err)
		}
	}
	count := k.execCount
	if !req.Silent {
		k.publish(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}

	if exitWords[strings.TrimSpace(req.Code)] {
		// Consoles leave when the reply asks them to, as IPython's exit does.
		k.reply(k.shell, m, "execute_reply", map[string]any{"status": "ok", "execution_count": count,
			"payload": []any{map[string]any{"source": "ask_exit", "keepkernel": false}}, "user_expressions": map[string]any{}})
		return 0
	}

	cellCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &cellOutput{k: k, parent: m, ctx: cellCtx, allowStdin: orTrue(req.AllowStdin)}
	k.lastOut.Store(out)
	k.cellMu.Lock()
	k.cancelCell = cancel
	k.cellMu.Unlock()
	noteCell(count, req.Code)
	result, err := k.run(session.WithExecutionCount(cellCtx, count), m, req.Code, out)
	var exprs map[string]any
	if err == nil {
		exprs = k.userExpressions(cellCtx, m, req.UserExpressions, out)
	}
	k.cellMu.Lock()
	k.cancelCell = nil
	k.cellMu.Unlock()
	if k.opts.Stdio != nil {
		k.opts.Stdio.sync()
	}
	out.finish()

	if err != nil {
		ce := cellError(err)
		k.log.Info("cell failed", "msg_id", m.Header.MsgID, "execution_count", count, "ename", ce.Name)
		// Count the requests to abort before the error goes out: a front
		// end that has seen it may send the next cell at once, which must run.
		if orTrue(req.StopOnError) {
			abortQueued = len(k.queue)
		}
		k.publish(m, "error", map[string]any{"ename": ce.Name, "evalue": ce.Value, "traceback": traceback(ce)})
		k.reply(k.shell, m, "execute_reply", errorContent(ce, count))
		return abortQueued
	}
	if result != nil && !req.Silent {
		k.publish(m, "execute_result", map[string]any{
			"execution_count": count, "data": orEmpty(result.Data), "metadata": orEmpty(result.Metadata)})
		if store {
			if err := k.history.AddOutput(count, plainText(result)); err != nil {
				k.log.Warn("history not saved", "msg_id", m.Header.MsgID, "err", err)
			}
		}
	}
	if exprs == nil {
		exprs = map[string]any{}
	}
	k.reply(k.shell, m, "execute_reply", map[string]any{
		"status": "ok", "execution_count": count, "payload": []any{}, "user_expressions": exprs})
	return 0
}

// run executes code, turning a panic of the interpreter into a cell error
// so that a bug there costs one cell, not the kernel.
func (k *Kernel) run(ctx context.Context, m *Message, code string, out session.Output) (b *session.Bundle, err error) {
	if r := k.guard(m, func() { b, err = k.opts.Interpreter.Execute(ctx, code, out) }); r != nil {
		return nil, &session.CellError{Name: "KernelPanic",
			Value: fmt.Sprintf("the interpreter panicked: %v (the kernel log has the stack)", r)}
	}
	return b, err
}

// userExpressions evaluates the user_expressions of a request after its
// cell succeeded, each to a text/plain bundle or an error, as the protocol
// asks. Their output, if any, goes to the cell's output.
func (k *Kernel) userExpressions(ctx context.Context, m *Message, exprs map[string]string, out session.Output) map[string]any {
	if len(exprs) == 0 {
		return nil
	}
	names := make([]string, 0, len(exprs))
	for name := range exprs {
		names = append(names, name)
	}
	sort.Strings(names) // evaluate in a stable order: expressions may have effects
	res := make(map[string]any, len(exprs))
	for _, name := range names {
		b, err := k.run(ctx, m, exprs[name], out)
		switch {
		case err != nil:
			res[name] = errorContent(cellError(err), -1)
		case b == nil:
			res[name] = map[string]any{"status": "ok", "data": map[string]any{"text/plain": ""}, "metadata": map[string]any{}}
		default:
			res[name] = map[string]any{"status": "ok", "data": orEmpty(b.Data), "metadata": orEmpty(b.Metadata)}
		}
	}
	return res
}

// cellError gives every execution error the shape of a session.CellError.
func cellError(err error) *session.CellError {
	var ce *session.CellError
	if errors.As(err, &ce) {
		return ce
	}
	return &session.CellError{Name: "Error", Value: err.Error()}
}

// traceback is the error's traceback, or its one-line message when it has
// none: front ends show the traceback only.
func traceback(ce *session.CellError) []string {
	if len(ce.Traceback) > 0 {
		return ce.Traceback
	}
	return []string{ce.Error()}
}

// errorContent is the content of an error reply; count < 0 leaves out the
// execution count (user expressions have none).
func errorContent(ce *session.CellError, count int) map[string]any {
	c := map[string]any{"status": "error", "ename": ce.Name, "evalue": ce.Value, "traceback": traceback(ce)}
	if count >= 0 {
		c["execution_count"] = count
	}
	return c
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// plainText is the text/plain form of a bundle, "" if it has none.
func plainText(b *session.Bundle) string {
	s, _ := b.Data["text/plain"].(string)
	return s
}

// cursorIn returns the cursor of a complete or inspect request in code:
// pos clamped to [0, the length of code], counted in Unicode code points as
// protocol 5.2 says; the end of code when the request gives none.
func cursorIn(code string, pos *int) int {
	n := utf8.RuneCountInString(code)
	if pos == nil {
		return n
	}
	return min(max(*pos, 0), n)
}

// complete answers a complete_request. Cursor positions are in Unicode code
// points on both sides, as protocol 5.2 and the session agree.
func (k *Kernel) complete(m *Message) {
	var req struct {
		Code      string `json:"code"`
		CursorPos *int   `json:"cursor_pos"`
	}
	if !k.decodeRequest(m, &req) {
		return
	}
	cursor := cursorIn(req.Code, req.CursorPos)
	var matches []string
	start, end := cursor, cursor
	k.guard(m, func() { matches, start, end = k.opts.Interpreter.Complete(req.Code, cursor) })
	if matches == nil {
		matches = []string{}
	}
	k.reply(k.shell, m, "complete_reply", map[string]any{"status": "ok", "matches": matches,
		"cursor_start": start, "cursor_end": end, "metadata": map[string]any{}})
}

// inspect answers an inspect_request with the interpreter's description of
// the name under the cursor.
func (k *Kernel) inspect(m *Message) {
	var req struct {
		Code        string `json:"code"`
		CursorPos   *int   `json:"cursor_pos"`
		DetailLevel int    `json:"detail_level"`
	}
	if !k.decodeRequest(m, &req) {
		return
	}
	cursor := cursorIn(req.Code, req.CursorPos)
	var b *session.Bundle
	var found bool
	k.guard(m, func() { b, found = k.opts.Interpreter.Inspect(req.Code, cursor, req.DetailLevel) })
	data, meta := map[string]any{}, map[string]any{}
	if found && b != nil {
		data, meta = orEmpty(b.Data), orEmpty(b.Metadata)
	}
	k.reply(k.shell, m, "inspect_reply", map[string]any{"status": "ok", "found": found && b != nil,
		"data": data, "metadata": meta})
}

// isComplete answers an is_complete_request, which consoles send before
// running what the user typed.
func (k *Kernel) isComplete(m *Message) {
	var req struct {
		Code string `json:"code"`
	}
	if !k.decodeRequest(m, &req) {
		return
	}
	status, indent := "unknown", ""
	k.guard(m, func() { status, indent = k.opts.Interpreter.IsComplete(req.Code) })
	content := map[string]any{"status": status}
	if status == "incomplete" {
		content["indent"] = indent
	}
	k.reply(k.shell, m, "is_complete_reply", content)
}

// historyRequest answers a history_request from the kernel's History.
func (k *Kernel) historyRequest(m *Message) {
	var req struct {
		Output         bool   `json:"output"`
		HistAccessType string `json:"hist_access_type"`
		Session        int    `json:"session"`
		Start          int    `json:"start"`
		Stop           *int   `json:"stop"`
		N              *int   `json:"n"`
		Pattern        string `json:"pattern"`
		Unique         bool   `json:"unique"`
	}
	if !k.decodeRequest(m, &req) {
		return
	}
	n := 0
	if req.N != nil {
		n = *req.N
	}
	var entries []HistoryEntry
	switch req.HistAccessType {
	case "tail":
		entries = k.history.Tail(n)
	case "range":
		stop := 0
		if req.Stop != nil {
			stop = *req.Stop
		}
		entries = k.history.Range(req.Session, req.Start, stop)
	case "search":
		var err error
		if entries, err = k.history.Search(req.Pattern, n, req.Unique); err != nil {
			k.reply(k.shell, m, "history_reply", errorContent(&session.CellError{Name: "BadPattern", Value: err.Error()}, -1))
			return
		}
	default:
		err := fmt.Errorf("hist_access_type %q is not tail, range or search", req.HistAccessType)
		k.reply(k.shell, m, "history_reply", errorContent(&session.CellError{Name: "BadRequest", Value: err.Error()}, -1))
		return
	}
	history := make([]any, len(entries))
	for i, e := range entries {
		var item any = e.Source
		if req.Output {
			var out any // JSON null when the line had no result
			if e.Output != nil {
				out = *e.Output
			}
			item = []any{e.Source, out}
		}
		history[i] = []any{e.Session, e.Line, item}
	}
	k.reply(k.shell, m, "history_reply", map[string]any{"status": "ok", "history": history})
}

// decodeRequest decodes m's content into v; on failure it logs and sends an
// error reply of m's type.
func (k *Kernel) decodeRequest(m *Message, v any) bool {
	err := m.DecodeContent(v)
	if err == nil {
		return true
	}
	k.log.Warn("bad request content", "msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID, "err", err)
	replyType := strings.TrimSuffix(m.Header.MsgType, "_request") + "_reply"
	k.reply(k.shell, m, replyType, errorContent(&session.CellError{Name: "BadRequest", Value: err.Error()}, -1))
	return false
}
