"""Why a number is what it is and what is wrong with the inputs: explain (a measure's value taken apart, the
conventions that would reproduce another tool's number) and check (every problem of the inputs in one report).

It may import the layers below the tools."""
