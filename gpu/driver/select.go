package driver

import (
	"fmt"
	"os"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// DeviceInfo describes one GPU: what it is and the limits that decide
// grid shapes and occupancy.
type DeviceInfo struct {
	Ordinal        int
	Name           string
	Major, Minor   int    // compute capability
	SMs            int    // streaming multiprocessors
	Memory         uint64 // total global memory, bytes
	ClockMHz       int    // SM clock
	MemoryClockMHz int
	MemoryBusBits  int
	L2Bytes        int
	WarpSize       int
	// Limits of a block and of a multiprocessor.
	MaxThreadsPerBlock  int
	MaxThreadsPerSM     int
	SharedPerBlock      int // bytes a block gets without opting in
	SharedPerBlockOptin int // bytes a block may opt in to
	SharedPerSM         int
	RegistersPerBlock   int
	MaxBlock            [3]int
	MaxGrid             [3]int
	// Largest textures (linear 1-D, 2-D width×height, 3-D), for the
	// device-query exercise; the kernels use no textures.
	MaxTexture1D int
	MaxTexture2D [2]int
	MaxTexture3D [3]int
}

// String summarises the device on one line.
// Figures a device does not have (the emulator has no clock, bus or L2)
// are left out.
func (i DeviceInfo) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "gpu %d: %s, compute capability %d.%d, %d SMs", i.Ordinal, i.Name, i.Major, i.Minor, i.SMs)
	if i.ClockMHz > 0 {
		fmt.Fprintf(&sb, " at %d MHz", i.ClockMHz)
	}
	fmt.Fprintf(&sb, ", %s", graph.FormatBytes(i.Memory))
	if i.MemoryBusBits > 0 {
		fmt.Fprintf(&sb, " (%d-bit bus)", i.MemoryBusBits)
	}
	if i.L2Bytes > 0 {
		fmt.Fprintf(&sb, ", L2 %s", graph.FormatBytes(uint64(i.L2Bytes)))
	}
	fmt.Fprintf(&sb, "; block ≤ %d threads, %s shared (%s opt-in); SM ≤ %d threads, %s shared",
		i.MaxThreadsPerBlock, graph.FormatBytes(uint64(i.SharedPerBlock)),
		graph.FormatBytes(uint64(i.SharedPerBlockOptin)), i.MaxThreadsPerSM, graph.FormatBytes(uint64(i.SharedPerSM)))
	return sb.String()
}

// EnvDriver is the environment variable that picks the driver: "cuda",
// "emu" (an interpreter of the kernels' PTX on the CPU) or "off". Unset or
// empty, it means cuda when CUDA works, and emu when it does not (a binary
// built without the cuda tag, no device, a driver that fails): the first
// GPU call in the process then says so on stderr, and Describe says why.
const EnvDriver = "PATHNOTES_GPU"

// Active returns the driver PATHNOTES_GPU selects, or an error that
// says why there is none (cuda asked for but built without CUDA, switched
// off, unknown name).
func Active() (Driver, error) {
	switch v := strings.TrimSpace(os.Getenv(EnvDriver)); v {
	case "":
		return defaultDriver(), nil
	case "cuda":
		return CUDA()
	case "off":
		return nil, fmt.Errorf("gpu: switched off by %s=off", EnvDriver)
	case "emu":
		return emuDriver{why: "selected by " + EnvDriver + "=emu"}, nil
	default:
		return nil, fmt.Errorf("gpu: %s=%q: want cuda, emu or off", EnvDriver, v)
	}
}
