package netfile

// SetOSMLimit makes the OpenStreetMap import coarsen to nodes and links
// until restore is called.
func SetOSMLimit(nodes, links int) (restore func()) {
	saved := osmLimit
	osmLimit.nodes, osmLimit.links = nodes, links
	return func() { osmLimit = saved }
}
