//go:build cgo && linux

package linktime

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void (*dsyevd_fn)(char*, char*, int*, double*, int*, double*, double*, int*, int*, int*, int*);
typedef void (*dsyrk_fn)(char*, char*, int*, int*, double*, double*, int*, double*, double*, int*);

static void* ontime_dlopen(const char* name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static void* ontime_dlsym(void* h, const char* name) { return dlsym(h, name); }
static int ontime_dsyevd(void* f, int n, double* a, double* w, double* work, int lwork, int* iwork, int liwork) {
	char jobz = 'V', uplo = 'U';
	int info = 0, lda = n;
	((dsyevd_fn)f)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info);
	return info;
}
// ontime_gram is dsyrk: the upper triangle of C = Aᵀ A for A column-major
// k × n (lda ≥ k), so a row-major n × k matrix F gives F Fᵀ.
static void ontime_gram(void* f, int n, int k, double* a, int lda, double* c) {
	char uplo = 'U', trans = 'T';
	double one = 1, zero = 0;
	((dsyrk_fn)f)(&uplo, &trans, &n, &k, &one, a, &lda, &zero, c, &n);
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

// lapackLib is the library loaded and the routines ontime calls in it;
// dsyrk comes from the BLAS the LAPACK library links.
type lapackLib struct {
	name        string
	syevd, syrk unsafe.Pointer
}

var lapack = sync.OnceValue(func() lapackLib {
	if os.Getenv(LapackOffVar) == "1" {
		return lapackLib{}
	}
	for _, name := range lapackNames {
		cname := C.CString(name)
		h := C.ontime_dlopen(cname)
		C.free(unsafe.Pointer(cname))
		if h == nil {
			continue
		}
		lib := lapackLib{name: name, syevd: lookup(h, "dsyevd_"), syrk: lookup(h, "dsyrk_")}
		if lib.syevd != nil && lib.syrk != nil {
			return lib
		}
	}
	return lapackLib{}
})

func lookup(h unsafe.Pointer, name string) unsafe.Pointer {
	sym := C.CString(name)
	defer C.free(unsafe.Pointer(sym))
	return C.ontime_dlsym(h, sym)
}

func lapackLibrary() string { return lapack().name }

// lapackGram returns F Fᵀ for a row-major n × k F as a row-major n × n
// slice whose lower triangle (j ≤ i) is filled: the BLAS's dsyrk, n²k/2
// multiply-adds at the BLAS's speed (gonum's Dense.Mul took 4.9 s for a
// 4,000-link dense model's summary on two cores, dsyrk 0.4 s).
func lapackGram(F *mat.Dense) ([]float64, bool) {
	f := lapack().syrk
	if f == nil {
		return nil, false
	}
	n, k := F.Dims()
	raw := F.RawMatrix()
	c := make([]float64, n*n)
	C.ontime_gram(f, C.int(n), C.int(k), (*C.double)(unsafe.Pointer(&raw.Data[0])), C.int(raw.Stride), (*C.double)(unsafe.Pointer(&c[0])))
	return c, true
}

// lapackEigen is dsyevd on a copy of a (a symmetric matrix is the same in
// column-major order; the eigenvectors come back as its columns, so row k
// of the row-major result is eigenvector k).
func lapackEigen(a *mat.SymDense) ([]float64, *mat.Dense, bool) {
	f := lapack().syevd
	if f == nil {
		return nil, nil, false
	}
	n := a.SymmetricDim()
	// Both triangles, as before: dsyevd reads 'U' of the column-major
	// matrix (the row-major lower triangle), and its factor must not
	// change with how the copy is made.
	buf := make([]float64, n*n)
	sym := a.RawSymmetric()
	for i := range n {
		copy(buf[i*n+i:(i+1)*n], sym.Data[i*sym.Stride+i:i*sym.Stride+n])
	}
	mirrorUpper(buf, n)
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
	transpose(vecs.RawMatrix().Data, buf, n)
	return w, vecs, true
}
