// Command noteopen opens a C2SP signed note with Go's golang.org/x/mod/sumdb/note, an implementation
// independent of the ledger's, so that GoNoteInteropTest can check the ledger's checkpoints with it.
//
// Usage: noteopen <verifier-key-file> <note-file>
//
// On success it prints the note's text exactly as signed, a blank line, and one line
// "verified <name>+<key hash>" per verified signature, and exits 0. When note.Open refuses the note it
// prints the package's error on stderr and exits 1; a bad verifier key or an unreadable file exits 2.
package main

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: noteopen <verifier-key-file> <note-file>")
		os.Exit(2)
	}
	vkey, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(2, err)
	}
	msg, err := os.ReadFile(os.Args[2])
	if err != nil {
		fail(2, err)
	}
	verifier, err := note.NewVerifier(strings.TrimSuffix(string(vkey), "\n"))
	if err != nil {
		fail(2, fmt.Errorf("verifier key: %w", err))
	}
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		fail(1, err)
	}
	fmt.Print(n.Text, "\n")
	for _, sig := range n.Sigs {
		fmt.Printf("verified %s+%08x\n", sig.Name, sig.Hash)
	}
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(code)
}
