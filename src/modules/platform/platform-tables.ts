// Tables shared by every module live beside the module that owns them; this file holds none yet.
export {};
