package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// Machine is what a notebook's measurements run on: the CPU, and the GPU
// device or why there is none, with the words the notebooks' tables and
// notes give them.
type Machine struct {
	// CPU names the processor and its logical CPUs, for the notes under
	// the tables: "AMD EPYC 7B13, 2 logical CPUs".
	CPU string
	// Device is the default GPU device (gpu.Default), nil when there is
	// none; Err says why.
	Device *gpu.Device
	Err    error
	// NoGPU is what the GPU cells of a table say without a device ("no
	// GPU: built without CUDA"), "" with one.
	NoGPU string
	// Tag goes after the "(here" of the GPU columns: ", emulator" on the
	// emulator, "" otherwise.
	Tag string
	// GPU is the GPU side of the notes under the tables: the device and
	// its driver, what the emulator's times are, or NoGPU.
	GPU string
	// What names the GPU side of the notebook in GPU and String, such as
	// "GPU variants".
	What string
}

// OpenMachine describes this machine and opens the default GPU device
// (gpu.Default); what names the GPU side of the notebook, such as "GPU
// variants".
func OpenMachine(what string) *Machine { return openMachine(what, gpu.Default) }

// openMachine is OpenMachine with the device from open.
func openMachine(what string, open func() (*gpu.Device, error)) *Machine {
	m := &Machine{CPU: fmt.Sprintf("%s, %d logical CPUs", CPUModel(), runtime.NumCPU()), What: what}
	m.Device, m.Err = open()
	switch {
	case m.Err != nil:
		m.Device = nil
		m.NoGPU = "no GPU: " + ShortReason(m.Err)
		m.GPU = m.NoGPU
	case m.Emulated():
		m.Tag = ", emulator"
		m.GPU = what + " on the " + m.Device.Info().Name + ": wall time on the CPU, not GPU time"
	default:
		m.GPU = m.Device.Info().Name + " (" + m.Device.Driver() + " driver)"
	}
	return m
}

// String gives the lines a notebook's machine cell prints: "CPU:" and the
// processor, then without a device NoGPU and that only the CPU runs, or
// with a card What and the device it runs on. On the emulator there are
// no more: each notebook says what it shrinks there.
func (m *Machine) String() string {
	s := "CPU: " + m.CPU
	switch {
	case m.NoGPU != "":
		s += "\n" + m.NoGPU + " (the GPU columns say so; only the CPU runs)"
	case !m.Emulated():
		s += "\n" + m.What + " on " + m.GPU
	}
	return s
}

// Emulated reports whether the device is the emulator (package
// gpu/ptxemu), whose times are wall time on the CPU.
func (m *Machine) Emulated() bool { return m.Device != nil && m.Device.Driver() == "emu" }

// Seconds is a time for a table's cell: s, or "—" when nothing ran (s is
// 0), or NoGPU in a GPU-side column (gpuSide) of a machine without a
// device.
func (m *Machine) Seconds(s float64, gpuSide bool) any {
	switch {
	case gpuSide && m.NoGPU != "":
		return m.NoGPU
	case s == 0:
		return "—"
	}
	return s
}

// CPUModel names this machine's processor (from /proc/cpuinfo on Linux).
func CPUModel() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH + " processor (model unknown)"
}

// ShortReason keeps the first clause of a GPU error: table cells are
// narrow.
func ShortReason(err error) string {
	if errors.Is(err, gpu.ErrNoCUDA) {
		return "built without CUDA"
	}
	s := strings.TrimPrefix(err.Error(), "gpu: ")
	if i := strings.Index(s, ";"); i > 0 {
		s = s[:i]
	}
	return s
}

// Mean runs f, a GPU run that returns its statistics, up to three times,
// once only when a run takes a second or more, and returns the mean wall
// and kernel seconds of the runs.
func Mean(f func() gpu.Stats) (wall, kernel float64) {
	runs := 0
	for runs < 3 {
		st := f()
		wall, kernel, runs = wall+st.Wall.Seconds(), kernel+st.Kernel.Seconds(), runs+1
		if st.Wall >= time.Second {
			break
		}
	}
	return wall / float64(runs), kernel / float64(runs)
}

// AllPairs runs the all-pairs GPU variant name on g on the machine's
// device, with Π when pred, and returns the result and the statistics of
// the call. The error names the variant and the graph.
func (m *Machine) AllPairs(ctx context.Context, name string, g *graph.Graph, pred bool) (*graph.AllPairs, gpu.Stats, error) {
	var st gpu.Stats
	if m.Device == nil {
		return nil, st, fmt.Errorf("%s on %s: %s", name, g.Name(), m.NoGPU)
	}
	r, err := gpu.AllPairs(ctx, name, g, gpu.Options{Pred: pred, Device: m.Device, Stats: &st})
	if err != nil {
		return nil, st, fmt.Errorf("%s on %s (|V|=%d, |E|=%d): %w", name, g.Name(), g.N(), g.M(), err)
	}
	return r, st, nil
}
