"""dolma's file formats: JSON-lines batches (:mod:`.lines`), documents (:mod:`.documents`), attribute lines (:mod:`.attributes`)."""
