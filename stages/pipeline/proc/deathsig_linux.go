package proc

import "syscall"

// dieWithRunner makes the kernel kill a job when the process that started
// it ends, however it ends: a runner killed with SIGKILL cannot stop its
// jobs itself, and a job left running would write into an output
// directory the next run, no longer locked out, writes too.
func dieWithRunner(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
