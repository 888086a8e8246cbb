; ISA version of gfx950 (major 9, minor 5, stepping 0).
; Missing from Debian ROCm 5.2.3 device-libs; built with llvm-as-22 by corpus/hip/CMakeLists.txt.
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__oclc_ISA_version = linkonce_odr hidden local_unnamed_addr addrspace(4) constant i32 9500, align 4
