"""The upload page and a document's page: their views and fragments, the rows they show,
and the status socket that keeps the rows live."""
