#!/usr/bin/env python3
"""The course's ICCG problem (workloads/iccg/iccg.hpp, poisson_problem) as Matrix Market files.

    scripts/iccg-mesh-mtx.py NX NY NZ OUT_PREFIX

writes OUT_PREFIX.mtx (A, real symmetric, the lower triangle and the diagonal) and OUT_PREFIX-b.mtx
(b, an array), so that

    acclab iccg OUT_PREFIX.mtx --rhs OUT_PREFIX-b.mtx --colors -20

solves through the file what `acclab run iccg --set nx=NX ny=NY nz=NZ` solves on the built-in mesh
(at 128^3 and CM-RCM 20 colours, 318 iterations). Cells are numbered x fastest; each face shared
with a neighbour couples the two with -1 and adds 1 to both diagonals; the top z layer's diagonal
gets 2 more (phi = 0 half a cell above); b = i + j + k, 1-based. Files are written whole or not at
all (a temporary name, renamed).
"""
import os
import sys


def write_atomically(path, write):
    temporary = f"{path}.tmp{os.getpid()}"
    try:
        with open(temporary, "w", buffering=1 << 22) as f:
            write(f)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def main():
    if len(sys.argv) != 5:
        sys.stderr.write("usage: iccg-mesh-mtx.py NX NY NZ OUT_PREFIX\n")
        return 2
    try:
        nx, ny, nz = (int(v) for v in sys.argv[1:4])
    except ValueError:
        sys.stderr.write(f"iccg-mesh-mtx.py: NX NY NZ must be integers: {sys.argv[1:4]}\n")
        return 2
    if min(nx, ny, nz) < 1 or nx * ny * nz >= 2**31:
        sys.stderr.write(f"iccg-mesh-mtx.py: {nx} x {ny} x {nz}: expected 1 to 2^31 - 1 cells\n")
        return 2
    prefix = sys.argv[4]
    n = nx * ny * nz
    # Stored entries: the diagonal and, per cell, its neighbours below it in x, y and z.
    lower = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)

    def write_matrix(f):
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write(f"% the course's ICCG mesh, {nx} x {ny} x {nz} (scripts/iccg-mesh-mtx.py)\n")
        f.write(f"{n} {n} {n + lower}\n")
        lines = []
        for k in range(nz):
            for j in range(ny):
                for i in range(nx):
                    row = (k * ny + j) * nx + i + 1  # 1-based
                    neighbours = (k > 0) + (j > 0) + (i > 0) + (i < nx - 1) + (j < ny - 1) + (
                        k < nz - 1)
                    diagonal = neighbours + (2 if k == nz - 1 else 0)
                    if k > 0:
                        lines.append(f"{row} {row - nx * ny} -1\n")
                    if j > 0:
                        lines.append(f"{row} {row - nx} -1\n")
                    if i > 0:
                        lines.append(f"{row} {row - 1} -1\n")
                    lines.append(f"{row} {row} {diagonal}\n")
                if len(lines) > 1 << 16:
                    f.writelines(lines)
                    lines.clear()
        f.writelines(lines)

    def write_rhs(f):
        f.write("%%MatrixMarket matrix array real general\n")
        f.write(f"{n} 1\n")
        for k in range(nz):
            for j in range(ny):
                f.writelines(f"{(i + 1) + (j + 1) + (k + 1)}\n" for i in range(nx))

    write_atomically(prefix + ".mtx", write_matrix)
    write_atomically(prefix + "-b.mtx", write_rhs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
