"""Direct uploads: the client sends the bytes straight to the bucket; the API never sees them.

`starting.start` admits the request as an upload is admitted (documents.front_door.admission, by
the view), records what was declared (DirectUpload) and hands out where to send the bytes: a
presigned POST form whose policy pins the object's key (made from ids only) and its exact
size, or, past INGEST_MULTIPART_THRESHOLD_BYTES, an S3 multipart upload with a presigned
URL per part that signs the part's exact Content-Length (S3 answers 403 to any other
size; a part that failed is sent again alone). `completion.complete` checks the object that arrived
(it exists, has the declared size, starts as a PDF: a ranged GET of its first bytes,
never the whole object), then records Document and Job in one statement as an upload
does, and keeps its answer: completing again (the client, a storage event, the sweeper)
gives the same answer. An object that is not what was declared is deleted and the upload
refused with an upload's own codes.

A form can be posted again for as long as its policy lasts, after the upload ended too.
So a form's bytes arrive at a staging key of the upload's own and are copied to the
document's key at completion, on condition that they are still the bytes checked (their
ETag); the staging key is then deleted, and anything posted there later is deleted by
the sweeper (`sweep.sweep_staging`). A multipart upload needs none of this: once completed,
refused or aborted its upload id takes no more parts.
"""
