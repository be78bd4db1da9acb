//go:build cgo && linux

package linktime

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void (*dsyevd_fn)(char*, char*, int*, double*, int*, double*, double*, int*, int*, int*, int*);

static void* ontime_dlopen(const char* name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static void* ontime_dlsym(void* h, const char* name) { return dlsym(h, name); }
static int ontime_dsyevd(void* f, int n, double* a, double* w, double* work, int lwork, int* iwork, int liwork) {
	char jobz = 'V', uplo = 'U';
	int info = 0, lda = n;
	((dsyevd_fn)f)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info);
	return info;
}
*/
import "C"

import (
	"os"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// lapackNames are the shared libraries tried, in order: Debian's LAPACK
// alternative (OpenBLAS where libopenblas0 is installed), then OpenBLAS by
// name. It is loaded at run time, so the binary starts and decomposes
// (with gonum) where there is none.
var lapackNames = []string{"liblapack.so.3", "libopenblas.so.0"}

var lapack = sync.OnceValues(func() (unsafe.Pointer, string) {
	if os.Getenv(LapackOffVar) == "1" {
		return nil, ""
	}
	sym := C.CString("dsyevd_")
	defer C.free(unsafe.Pointer(sym))
	for _, name := range lapackNames {
		cname := C.CString(name)
		h := C.ontime_dlopen(cname)
		C.free(unsafe.Pointer(cname))
		if h == nil {
			continue
		}
		if f := C.ontime_dlsym(h, sym); f != nil {
			return f, name
		}
	}
	return nil, ""
})

func lapackLibrary() string {
	_, name := lapack()
	return name
}

// lapackEigen is dsyevd on a copy of a (a symmetric matrix is the same in
// column-major order; the eigenvectors come back as its columns, so row k
// of the row-major result is eigenvector k).
func lapackEigen(a *mat.SymDense) ([]float64, *mat.Dense, bool) {
	f, _ := lapack()
	if f == nil {
		return nil, nil, false
	}
	n := a.SymmetricDim()
	buf := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			v := a.At(i, j)
			buf[i*n+j], buf[j*n+i] = v, v
		}
	}
	w := make([]float64, n)
	lwork, liwork := 1+6*n+2*n*n, 3+5*n
	work := make([]float64, lwork)
	iwork := make([]C.int, liwork)
	info := C.ontime_dsyevd(f, C.int(n), (*C.double)(unsafe.Pointer(&buf[0])), (*C.double)(unsafe.Pointer(&w[0])),
		(*C.double)(unsafe.Pointer(&work[0])), C.int(lwork), &iwork[0], C.int(liwork))
	if info != 0 {
		return nil, nil, false
	}
	vecs := mat.NewDense(n, n, nil)
	raw := vecs.RawMatrix()
	for k := range n {
		col := buf[k*n : (k+1)*n]
		for i, v := range col {
			raw.Data[i*raw.Stride+k] = v
		}
	}
	return w, vecs, true
}
