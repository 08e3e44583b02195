// view/page/graph-lib: graphology and sigma as one separately bundled module (dist/graph.js), imported by the page
// only when it draws a graph, so the first render's script stays small. Re-exports; owns nothing.
export { default as Graph } from 'graphology'
export { default as Sigma } from 'sigma'
