/**
 * The {@code streamform} command line (picocli): one class per command, each with {@code --help}; a
 * mistake in a command line is one line and exit 2, never a stack trace. The reference is generated
 * from these classes (docs/reference/cli.md).
 */
package dev.streamform.cli;
