/**
 * The reference oracles: what the contract says a fixture or trace must produce, computed in plain
 * Java from docs/semantics.md alone, sharing no code with the engine's transforms.
 */
package dev.streamform.teststreams.oracle;
