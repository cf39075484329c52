/**
 * A project folder read and checked: {@code sources.yml}, {@code streamform.yml}, {@code
 * models/*.sql} and fixtures, every problem reported with its file, line, key and fix.
 */
package dev.streamform.policies.project;
