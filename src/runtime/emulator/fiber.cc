// The x86-64 fiber switch of the CUDA emulator (see fiber.h).
#include "runtime/emulator/fiber.h"

#if MINITVM_EMU_ASM_FIBERS
// minitvm_emu_switch(save_sp, load_sp): see fiber.h.
asm(R"(
    .text
    .p2align 4
    .globl minitvm_emu_switch
    .hidden minitvm_emu_switch
    .type minitvm_emu_switch,@function
minitvm_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size minitvm_emu_switch,.-minitvm_emu_switch
)");

namespace minitvm::runtime::emulator::fiber {

void* make_fiber_context(char* stack, size_t bytes, void (*entry)()) {
  auto top = reinterpret_cast<uintptr_t>(stack + bytes) & ~uintptr_t{15};
  auto* sp = reinterpret_cast<uint64_t*>(top);
  *--sp = 0;                                  // return address of entry: never used
  *--sp = reinterpret_cast<uint64_t>(entry);  // consumed by `ret`; entry then sees rsp % 16 == 8
  for (int i = 0; i < 6; ++i) *--sp = 0;      // rbp rbx r12 r13 r14 r15
  *--sp = (uint64_t{0x037F} << 32) | 0x1F80;  // x87 control word : MXCSR (the ABI's defaults)
  return sp;
}

}  // namespace minitvm::runtime::emulator::fiber
#endif  // MINITVM_EMU_ASM_FIBERS
