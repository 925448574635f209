package azure

import (
	"maps"

	"github.com/aisdkgo/ai/provider"
)

// The provider options keys: the Responses implementation of the openai
// package reads "openai"; callers of Azure models may write "azure".
const (
	azureKey  = "azure"
	openaiKey = "openai"
)

// azureOptions returns opts with every "azure" provider options entry (of
// the call, its prompt's messages, parts and tool outputs) in place of the
// "openai" one beside it, and file references made for "azure" readable
// under "openai". Tools keep their "openai" options, as in the reference.
// opts itself is not modified; what holds no "azure" entry is shared with
// it.
func azureOptions(opts *provider.CallOptions) *provider.CallOptions {
	if opts == nil {
		return nil
	}
	o := *opts
	changed := false
	if po, ok := swap(opts.ProviderOptions); ok {
		o.ProviderOptions, changed = po, true
	}
	if prompt, ok := swapPrompt(opts.Prompt); ok {
		o.Prompt, changed = prompt, true
	}
	if !changed {
		return opts
	}
	return &o
}

// swap returns po with its "azure" entry copied to "openai", and whether
// there was one.
func swap(po provider.ProviderOptions) (provider.ProviderOptions, bool) {
	az, ok := po[azureKey]
	if !ok {
		return po, false
	}
	out := maps.Clone(po)
	out[openaiKey] = az
	return out, true
}

// swapFile returns d with a reference made for "azure" also under
// "openai", and whether it had one.
func swapFile(d provider.FileData) (provider.FileData, bool) {
	var ref map[string]string
	switch d := d.(type) {
	case provider.FileReference:
		ref = d.Reference
	case *provider.FileReference:
		if d != nil {
			ref = d.Reference
		}
	}
	id, ok := ref[azureKey]
	if !ok {
		return d, false
	}
	out := maps.Clone(ref)
	out[openaiKey] = id
	return provider.FileReference{Reference: out}, true
}

func swapPrompt(prompt []provider.Message) ([]provider.Message, bool) {
	var out []provider.Message
	for i, m := range prompt {
		nm, ok := swapMessage(m)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]provider.Message(nil), prompt...)
		}
		out[i] = nm
	}
	return out, out != nil
}

// swapMessage returns m with its own options and those of its parts
// swapped, and whether anything was.
func swapMessage(m provider.Message) (provider.Message, bool) {
	switch m := m.(type) {
	case provider.SystemMessage:
		po, ok := swap(m.ProviderOptions)
		m.ProviderOptions = po
		return m, ok
	case provider.UserMessage:
		po, ok := swap(m.ProviderOptions)
		m.ProviderOptions = po
		parts, pok := swapParts(m.Content, swapPart[provider.UserPart])
		m.Content = parts
		return m, ok || pok
	case provider.AssistantMessage:
		po, ok := swap(m.ProviderOptions)
		m.ProviderOptions = po
		parts, pok := swapParts(m.Content, swapPart[provider.AssistantPart])
		m.Content = parts
		return m, ok || pok
	case provider.ToolMessage:
		po, ok := swap(m.ProviderOptions)
		m.ProviderOptions = po
		parts, pok := swapParts(m.Content, swapPart[provider.ToolPart])
		m.Content = parts
		return m, ok || pok
	}
	return m, false
}

// swapParts swaps the options of each part; the slice is copied only
// when a part changes.
func swapParts[P any](parts []P, f func(P) (P, bool)) ([]P, bool) {
	var out []P
	for i, p := range parts {
		np, ok := f(p)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]P(nil), parts...)
		}
		out[i] = np
	}
	if out == nil {
		return parts, false
	}
	return out, true
}

// swapPart swaps the options of a part of any kind; P is the part
// interface of the message that holds it.
func swapPart[P any](p P) (P, bool) {
	v, ok := swapAny(any(p))
	if !ok {
		return p, false
	}
	np, ok := v.(P)
	if !ok {
		return p, false
	}
	return np, true
}

func swapAny(p any) (any, bool) {
	switch p := p.(type) {
	case provider.TextPart:
		po, ok := swap(p.ProviderOptions)
		p.ProviderOptions = po
		return p, ok
	case provider.FilePart:
		po, ok := swap(p.ProviderOptions)
		d, dok := swapFile(p.Data)
		p.ProviderOptions, p.Data = po, d
		return p, ok || dok
	case provider.ReasoningPart:
		po, ok := swap(p.ProviderOptions)
		p.ProviderOptions = po
		return p, ok
	case provider.ReasoningFilePart:
		po, ok := swap(p.ProviderOptions)
		d, dok := swapFile(p.Data)
		p.ProviderOptions, p.Data = po, d
		return p, ok || dok
	case provider.CustomPart:
		po, ok := swap(p.ProviderOptions)
		p.ProviderOptions = po
		return p, ok
	case provider.ToolCallPart:
		po, ok := swap(p.ProviderOptions)
		p.ProviderOptions = po
		return p, ok
	case provider.ToolResultPart:
		po, ok := swap(p.ProviderOptions)
		out, ook := swapOutput(p.Output)
		p.ProviderOptions, p.Output = po, out
		return p, ok || ook
	case provider.ToolApprovalRequestPart:
		po, ok := swap(p.ProviderOptions)
		p.ProviderOptions = po
		return p, ok
	case provider.ToolApprovalResponsePart:
		po, ok := swap(p.ProviderOptions)
		p.ProviderOptions = po
		return p, ok
	}
	return p, false
}

// swapOutput swaps the options of a tool result's output and of the parts
// of a content output.
func swapOutput(o provider.ToolResultOutput) (provider.ToolResultOutput, bool) {
	var ok bool
	switch v := o.(type) {
	case provider.TextOutput:
		v.ProviderOptions, ok = swap(v.ProviderOptions)
		return v, ok
	case provider.JSONOutput:
		v.ProviderOptions, ok = swap(v.ProviderOptions)
		return v, ok
	case provider.ExecutionDeniedOutput:
		v.ProviderOptions, ok = swap(v.ProviderOptions)
		return v, ok
	case provider.ErrorTextOutput:
		v.ProviderOptions, ok = swap(v.ProviderOptions)
		return v, ok
	case provider.ErrorJSONOutput:
		v.ProviderOptions, ok = swap(v.ProviderOptions)
		return v, ok
	case provider.ContentOutput:
		v.ProviderOptions, ok = swap(v.ProviderOptions)
		parts, pok := swapParts(v.Value, swapPart[provider.ContentOutputPart])
		v.Value = parts
		return v, ok || pok
	}
	return o, false
}
