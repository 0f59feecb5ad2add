// Package libraries resolves names and questions to the libraries of a
// catalog: Index ranks them (exact ids, names, titles and aliases first,
// then orgs, partial names and descriptions, BM25F within each tier) for
// resolve-library-id and the REST search, ByName finds the one library a
// bare name means, and Find describes matches to a detail level (topic
// trees, documents, folders) within fixed token caps. An Index is built
// once per loaded catalog and read-only after.
package libraries
