module github.com/ontime-routing/ontime

go 1.26.8

require gonum.org/v1/gonum v0.17.0

require github.com/yalue/onnxruntime_go v1.27.0
