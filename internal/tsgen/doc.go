// Package tsgen renders the tool catalog that code mode shows a model: a
// TypeScript declaration of the global tools object, derived from each
// tool's input and output JSON Schemas, followed by a short program that
// calls the tools.
//
// Rendering is deterministic. Object members follow the order of the JSON
// text they come from and no output depends on Go map iteration, so the same
// tools always give the same bytes. Callers rely on that to compare catalogs
// between steps and to keep cached prompt prefixes stable.
//
// Schema conversion is bounded: nesting deeper than eight levels renders as
// unknown (or null in samples), and each local $ref is followed at most once
// per conversion, so recursive schemas render finitely.
package tsgen
