package web3api

// TokenPriceRequest is one token of Token.GetMultipleTokenPrices.
type TokenPriceRequest struct {
	TokenAddress string `json:"token_address"`
	Exchange     string `json:"exchange,omitempty"`
	ToBlock      string `json:"to_block,omitempty"`
}

// NFTTokenRef names one NFT for Token.GetMultipleNFTs.
type NFTTokenRef struct {
	TokenAddress string `json:"token_address"`
	TokenID      string `json:"token_id"`
}

// ContractReview is one contract report for Utils.ReviewContracts.
type ContractReview struct {
	ContractAddress string `json:"contract_address"`
	Reason          string `json:"reason"`
	ReportType      string `json:"report_type"`
	ContractType    string `json:"contract_type"`
}

// IPFSFileInput is one file for Storage.UploadFolder: a path and its content (base64 or JSON text).
type IPFSFileInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}
