//! The simple types of XML Schema 1.0 Part 2: the built-in types, facets, values and patterns.
