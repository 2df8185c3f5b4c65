// Package modelkit holds what the harnesses of models that Atelier drives
// itself (openai, anthropic) share: the retry policy for rate limits and
// overloads, and the conversion of a transcript into API turns.
package modelkit
