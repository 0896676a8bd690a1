package lab

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
)

// TestOpenMachine checks the lines and words of a machine without a GPU and
// of one with the emulator.
func TestOpenMachine(t *testing.T) {
	m := openMachine("GPU versions", func() (*gpu.Device, error) {
		return nil, fmt.Errorf("gpu: no device: %w; set PATHNOTES_GPU", gpu.ErrNoCUDA)
	})
	want := "CPU: " + m.CPU + "\nno GPU: built without CUDA (the GPU columns say so; only the CPU runs)"
	if m.String() != want || m.Device != nil || m.NoGPU != "no GPU: built without CUDA" || m.GPU != m.NoGPU || m.Tag != "" || m.Emulated() {
		t.Errorf("without a GPU: %q, %+v", m.String(), m)
	}
	if !strings.HasSuffix(m.CPU, " logical CPUs") {
		t.Errorf("CPU %q", m.CPU)
	}
	m = openMachine("GPU versions", gpu.Emulator)
	if err := m.Err; err != nil {
		t.Fatal(err)
	}
	if m.String() != "CPU: "+m.CPU || !m.Emulated() || m.Tag != ", emulator" || m.NoGPU != "" ||
		m.GPU != "GPU versions on the "+m.Device.Info().Name+": wall time on the CPU, not GPU time" {
		t.Errorf("on the emulator: %q, %+v", m.String(), m)
	}
	// A card: the GPU side and the device with its driver.
	card := &Machine{CPU: "x", What: "GPU kernels", GPU: "NVIDIA H100 80GB HBM3 (cuda driver)"}
	if got, want := card.String(), "CPU: x\nGPU kernels on NVIDIA H100 80GB HBM3 (cuda driver)"; got != want {
		t.Errorf("with a card: %q, want %q", got, want)
	}
}

func TestSeconds(t *testing.T) {
	with, without := &Machine{}, &Machine{NoGPU: "no GPU: off"}
	for _, c := range []struct {
		m       *Machine
		s       float64
		gpuSide bool
		want    any
	}{
		{with, 1.5, true, 1.5}, {with, 0, true, "—"}, {with, 0, false, "—"},
		{without, 1.5, true, "no GPU: off"}, {without, 0, true, "no GPU: off"}, {without, 2, false, 2.0},
	} {
		if got := c.m.Seconds(c.s, c.gpuSide); got != c.want {
			t.Errorf("%+v.Seconds(%g, %v) = %v, want %v", c.m, c.s, c.gpuSide, got, c.want)
		}
	}
}

func TestShortReason(t *testing.T) {
	for err, want := range map[error]string{
		gpu.ErrNoCUDA:                         "built without CUDA",
		fmt.Errorf("open: %w", gpu.ErrNoCUDA): "built without CUDA",
		errors.New("gpu: PATHNOTES_GPU=off; unset it to use a device"): "PATHNOTES_GPU=off",
		errors.New("no device"): "no device",
	} {
		if got := ShortReason(err); got != want {
			t.Errorf("ShortReason(%v) = %q, want %q", err, got, want)
		}
	}
	if CPUModel() == "" {
		t.Error("no CPU model")
	}
}

func TestMean(t *testing.T) {
	calls := 0
	wall, kernel := Mean(func() gpu.Stats {
		calls++
		return gpu.Stats{Wall: time.Duration(calls) * 100 * time.Millisecond, Kernel: 10 * time.Millisecond}
	})
	if calls != 3 || wall < 0.199 || wall > 0.201 || kernel < 0.0099 || kernel > 0.0101 {
		t.Errorf("three short runs: %d calls, mean %g s wall, %g s kernels", calls, wall, kernel)
	}
	calls = 0
	wall, _ = Mean(func() gpu.Stats { calls++; return gpu.Stats{Wall: 2 * time.Second} })
	if calls != 1 || wall != 2 {
		t.Errorf("a long run: %d calls, mean %g s", calls, wall)
	}
}
