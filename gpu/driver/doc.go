// Package driver is the layer that package gpu's solvers and package
// cells' kernels both stand on: the Driver and Context interfaces (device
// discovery, memory, copies, modules, launches, events, streams), their
// two implementations, and the errors a driver reports.
//
// The cuda driver (gorgonia.org/cu) is built with the build tag cuda; the
// emu driver runs the kernels' PTX on the CPU with package gpu/ptxemu,
// exactly and bounds-checked, and needs neither cgo nor a GPU. EnvDriver
// (PATHNOTES_GPU) picks one (Active): cuda, emu or off; unset, cuda when
// it works and emu otherwise. Emulator gives the emulator whatever the
// variable says.
//
// A driver's call that fails returns an *Error with CUDA's result code and
// name; a sticky one (an illegal address, a trap) leaves the context
// unusable until Reset. The emulator's device-side printf goes where the
// launch's context says (WithPrintf).
package driver
