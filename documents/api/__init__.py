"""The documents API: its DRF views (documents, versions, downloads, search), their
serializers and their OpenAPI descriptions."""
